import { checkIssuer } from './issuerUrl';

describe('checkIssuer', () => {
  it.each([
    'https://login.example.com',
    'https://login.example.com/realms/brand/',
    'http://127.0.0.1:4010',
    'http://127.8.9.1:4010',
    'http://localhost:4010',
    'http://[::1]:4010',
  ])('accepts %s', (issuer) => {
    expect(checkIssuer(issuer)).toMatchObject({ ok: true, issuer });
  });

  it.each([
    'http://login.example.com',
    'http://10.0.0.1',
    'http://127.0.0.1.example.com',
    'ftp://login.example.com',
    'https://user:pw@login.example.com',
    'https://login.example.com/?a=1',
    'https://login.example.com/#x',
    'login.example.com',
    '',
  ])('refuses %s', (issuer) => {
    expect(checkIssuer(issuer)).toMatchObject({ ok: false });
  });
});

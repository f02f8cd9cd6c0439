import { checkIssuer } from './issuerUrl';

const strict = { allowLoopback: false };
const local = { allowLoopback: true };

describe('checkIssuer', () => {
  it.each(['https://login.example.com', 'https://login.example.com/realms/brand/'])(
    'accepts %s',
    (issuer) => {
      expect(checkIssuer(issuer, strict)).toMatchObject({ ok: true, issuer });
      expect(checkIssuer(issuer, local)).toMatchObject({ ok: true, issuer });
    },
  );

  it.each([
    'http://127.0.0.1:4010',
    'http://localhost:4010',
    'http://[::1]:4010',
    'https://127.0.0.1:8443',
  ])('accepts the local provider %s only with the local-only setting', (issuer) => {
    expect(checkIssuer(issuer, local)).toMatchObject({ ok: true, issuer });
    const refused = checkIssuer(issuer, strict);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? '' : refused.message).toMatch(/loopback|Loopback|https/);
  });

  it.each([
    ['http://login.example.com', /must use https/],
    ['http://10.0.0.1', /must use https/],
    ['https://10.255.255.1', /Private-Use/],
    ['https://169.254.169.254', /cloud metadata/],
    ['https://[fe80::1]', /Link-Local/],
    ['https://[::ffff:7f00:1]', /IPv4-mapped/],
    ['https://0x7f.2', /Loopback/],
    ['https://127.8.9.1', /Loopback/],
    ['https://100.100.100.200', /cloud metadata/],
    ['https://login.example.com:22', /well-known port/],
    ['https://login.example.com:6379', /Redis/],
    ['http://127.0.0.1.example.com', /must use https/],
    ['ftp://login.example.com', /must use https/],
    ['https://user:pw@login.example.com', /credentials/],
    ['https://login.example.com/?a=1', /query/],
    ['https://login.example.com/#x', /fragment/],
    ['login.example.com', /a URL/],
    ['', /a URL/],
  ])('refuses %s, with the setting or without', (issuer, why) => {
    for (const policy of [strict, local]) {
      const refused = checkIssuer(issuer, policy);
      expect(refused.ok).toBe(false);
      expect(refused.ok ? '' : refused.message).toMatch(why);
    }
  });
});

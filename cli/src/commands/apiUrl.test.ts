import { apiUrlProblem } from './apiUrl';

describe('apiUrlProblem', () => {
  it('takes https anywhere, and plain http to this machine only', () => {
    for (const ok of [
      'https://api.example.com',
      'https://203.0.113.9:8443',
      'http://127.0.0.1:8080',
      'http://127.1.2.3',
      'http://localhost:8080',
      'http://[::1]:8080',
    ])
      expect([ok, apiUrlProblem(ok)]).toEqual([ok, undefined]);
  });

  it('refuses plain http to another host, other schemes and what is no URL, never echoing a key', () => {
    expect(apiUrlProblem('http://192.0.2.2:47990')).toMatch(
      /would send the API key in clear: use https/,
    );
    expect(apiUrlProblem('http://api.example.com')).toMatch(/in clear/);
    expect(apiUrlProblem('http://127.0.0.1.example.com')).toMatch(/in clear/);
    expect(apiUrlProblem('ftp://api.example.com')).toMatch(/must be https \(got ftp:\)/);
    expect(apiUrlProblem('api.example.com')).toMatch(/is not a URL/);
  });
});

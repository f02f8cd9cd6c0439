import { describeNoResponse } from './sendErrors';

const target = new URL('https://hooks.example.com/in');
const timeouts = { connectMs: 5_000, totalMs: 30_000 };
const words = (err: unknown): string => describeNoResponse(err, target, timeouts).error;

describe('describeNoResponse', () => {
  it('names the address that refused or reset the connection', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), {
      code: 'ECONNREFUSED',
      address: '203.0.113.7',
      port: 443,
    });
    expect(words(refused)).toBe('connection refused by 203.0.113.7:443');
    expect(describeNoResponse(refused, target, timeouts).errorClass).toBe('connection_error');
    const reset = { code: 'ECONNRESET', address: '2001:db8::1', port: 8443 };
    expect(words(reset)).toBe('connection reset by [2001:db8::1]:8443');
  });

  it('reads the cause when the error wraps it', () => {
    expect(words({ message: 'fetch failed', cause: { code: 'ENOTFOUND' } })).toBe(
      'hooks.example.com does not resolve (no such host)',
    );
  });

  it('words timeouts with the configured limits and marks them as overload', () => {
    const total = describeNoResponse({ name: 'TimeoutError' }, target, timeouts);
    expect(total).toEqual({
      errorClass: 'timeout',
      error: 'timed out after 30 s without an answer',
      timedOut: true,
    });
    expect(words({ code: 'UND_ERR_CONNECT_TIMEOUT' })).toBe(
      'could not connect to hooks.example.com:443 within 5 s',
    );
  });

  it('explains TLS failures', () => {
    const expired = describeNoResponse({ code: 'CERT_HAS_EXPIRED' }, target, timeouts);
    expect(expired).toMatchObject({
      errorClass: 'tls_error',
      error: "TLS failed: the receiver's certificate has expired",
    });
    expect(words({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' })).toMatch(/does not name this host/);
    expect(words({ code: 'ERR_SSL_WRONG_VERSION_NUMBER' })).toBe(
      'TLS failed: ERR_SSL_WRONG_VERSION_NUMBER',
    );
  });

  it('passes a blocked address on as the egress policy worded it', () => {
    expect(
      describeNoResponse(
        { code: 'EBLOCKEDADDRESS', message: '10.0.0.1 is not a public address' },
        target,
        timeouts,
      ),
    ).toMatchObject({ errorClass: 'blocked_address', error: '10.0.0.1 is not a public address' });
  });
});

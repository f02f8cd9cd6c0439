import { connectionProblemOf } from './connectionProblem';

const withCode = (message: string, code: string): Error =>
  Object.assign(new Error(message), { code });

describe('connectionProblemOf', () => {
  it('names an untrusted certificate, through wrappers', () => {
    const socket = withCode(
      'self-signed certificate in certificate chain',
      'SELF_SIGNED_CERT_IN_CHAIN',
    );
    const wrapped = new Error('Connection error: self-signed certificate', { cause: socket });
    expect(connectionProblemOf(wrapped)).toBe(
      'tls: server certificate not trusted (SELF_SIGNED_CERT_IN_CHAIN)',
    );
  });

  it('names a certificate for another host', () => {
    expect(
      connectionProblemOf(withCode('Hostname/IP does not match', 'ERR_TLS_CERT_ALTNAME_INVALID')),
    ).toBe('tls: server certificate does not name the host');
  });

  it('names refused credentials of Kafka, PostgreSQL and Redis', () => {
    const kafka = Object.assign(new Error('SASL SCRAM SHA512 authentication failed'), {
      name: 'KafkaJSSASLAuthenticationError',
    });
    expect(connectionProblemOf(kafka)).toBe('authentication failed');
    expect(connectionProblemOf(withCode('password authentication failed', '28P01'))).toBe(
      'authentication failed',
    );
    expect(connectionProblemOf(new Error('WRONGPASS invalid username-password pair'))).toBe(
      'authentication failed',
    );
  });

  it('says nothing of a server that is simply down', () => {
    expect(connectionProblemOf(withCode('connect ECONNREFUSED', 'ECONNREFUSED'))).toBeUndefined();
    expect(connectionProblemOf('not an error')).toBeUndefined();
  });
});

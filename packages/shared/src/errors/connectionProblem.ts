/**
 * What stops a connection, in the words readiness and logs use: "authentication failed" or a
 * "tls: ..." reason, or undefined when the error says neither (the caller reports the
 * server unreachable). Walks the `cause` chain, since clients wrap the socket's error
 * (kafkajs's retries, the outbox relay's PublishFailure).
 */
export function connectionProblemOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    const found = problemOfOne(e);
    if (found) return found;
    e = e.cause;
  }
  return undefined;
}

/** Node's codes for a certificate chain that ends at no trusted CA. */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

function problemOfOne(e: Error): string | undefined {
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNTRUSTED.has(code)) return `tls: server certificate not trusted (${code})`;
    if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
      return 'tls: server certificate does not name the host';
    if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
      return `tls: server certificate not valid now (${code})`;
    // PostgreSQL: invalid_password, invalid_authorization_specification
    if (code === '28P01' || code === '28000') return 'authentication failed';
  }
  if (e.name === 'KafkaJSSASLAuthenticationError') return 'authentication failed';
  if (/^(WRONGPASS|NOAUTH)\b/.test(e.message)) return 'authentication failed';
  if (/does not support SSL/i.test(e.message)) return 'tls: server does not offer TLS';
  return undefined;
}

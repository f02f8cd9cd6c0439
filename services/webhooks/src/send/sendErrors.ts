/** Why an attempt failed, a bounded word stored with it (Attempt.error_class). */
export type ErrorClass =
  | 'http_status'
  | 'redirect'
  | 'timeout'
  | 'connect_timeout'
  | 'connection_error'
  | 'tls_error'
  | 'blocked_address'
  | 'invalid_url'
  | 'secret_unavailable'
  | 'unexpected_continue';

/** A failure without a response: its class, the words shown to people, and whether it was a timeout. */
export interface NoResponse {
  errorClass: ErrorClass;
  error: string;
  timedOut: boolean;
}

interface NodeError {
  name?: string;
  code?: string;
  message?: string;
  address?: string;
  port?: number;
  hostname?: string;
  cause?: NodeError;
}

const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH)/;

/** What each TLS verification failure means for the receiver's operator. */
const TLS_WORDS: Record<string, string> = {
  CERT_HAS_EXPIRED: "the receiver's certificate has expired",
  CERT_NOT_YET_VALID: "the receiver's certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the receiver's certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the receiver's certificate chain ends in a self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "the receiver's certificate is not signed by a trusted authority (is the chain incomplete?)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    "the receiver's certificate is not signed by a trusted authority (is the chain incomplete?)",
  ERR_TLS_CERT_ALTNAME_INVALID: "the receiver's certificate does not name this host",
  CERT_REVOKED: "the receiver's certificate is revoked",
};

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** "203.0.113.7:443", or the host name when no address was reached. */
function peer(e: NodeError, target: URL): string {
  const port = e.port ?? (target.port || '443');
  const host = e.address ?? target.hostname;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Puts a failure without a response into words a receiver's operator can act on:
 * "connection refused by 203.0.113.7:443", "timed out after 30 s without an answer",
 * "TLS failed: the receiver's certificate has expired". Never the raw stack.
 */
export function describeNoResponse(
  err: unknown,
  target: URL,
  timeouts: { connectMs: number; totalMs: number },
): NoResponse {
  const outer = (err ?? {}) as NodeError;
  const e: NodeError = outer.code === undefined && outer.cause ? outer.cause : outer;
  const code = e.code ?? outer.cause?.code ?? '';
  if (
    outer.name === 'TimeoutError' ||
    outer.name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return {
      errorClass: 'timeout',
      error: `timed out after ${seconds(timeouts.totalMs)} without an answer`,
      timedOut: true,
    };
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
    return {
      errorClass: 'connect_timeout',
      error: `could not connect to ${peer(e, target)} within ${seconds(timeouts.connectMs)}`,
      timedOut: true,
    };
  }
  if (code === 'EBLOCKEDADDRESS') {
    return {
      errorClass: 'blocked_address',
      error: e.message ?? 'address refused',
      timedOut: false,
    };
  }
  // undici (7.x) destroys the connection at a 100 Continue it did not ask for (it never sends
  // Expect: 100-continue) and fails the request in flight with this error (client-h1.js,
  // onHeadersComplete; its other 'bad response' is data with no request in flight, which fails
  // none): the receiver answered, and its final answer cannot be read (nodejs/undici#197).
  if (code === 'UND_ERR_SOCKET' && e.message === 'bad response') {
    return {
      errorClass: 'unexpected_continue',
      error:
        `${peer(e, target)} answered 100 Continue, which was not asked for ` +
        '(no Expect: 100-continue is sent); the sender cannot read the answer after it',
      timedOut: false,
    };
  }
  if (TLS_CODES.test(code)) {
    return {
      errorClass: 'tls_error',
      error: `TLS failed: ${TLS_WORDS[code] ?? code}`,
      timedOut: false,
    };
  }
  return {
    errorClass: 'connection_error',
    error: connectionWords(code, e, target),
    timedOut: false,
  };
}

function connectionWords(code: string, e: NodeError, target: URL): string {
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${peer(e, target)}`;
    case 'ECONNRESET':
      return `connection reset by ${peer(e, target)}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${peer(e, target)}`;
    case 'ENOTFOUND':
      return `${target.hostname} does not resolve (no such host)`;
    case 'EAI_AGAIN':
      return `${target.hostname} could not be resolved right now (DNS lookup failed)`;
    case 'UND_ERR_SOCKET':
      return `${peer(e, target)} closed the connection before answering`;
    default:
      return `connection to ${peer(e, target)} failed (${code || e.message || 'unknown error'})`;
  }
}

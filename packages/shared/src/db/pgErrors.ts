/** SQLSTATEs we branch on by name. */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  duplicateTable: '42P07',
  queryCanceled: '57014',
  adminShutdown: '57P01',
  crashShutdown: '57P02',
  cannotConnectNow: '57P03',
  tooManyConnections: '53300',
  /** A write on a standby: the primary this connection reached was demoted in a failover. */
  readOnlySqlTransaction: '25006',
  /** A lock not granted within lock_timeout (the migrations give way to traffic with it). */
  lockNotAvailable: '55P03',
} as const;

const UNAVAILABLE_STATES: ReadonlySet<string> = new Set([
  SQLSTATE.queryCanceled,
  SQLSTATE.adminShutdown,
  SQLSTATE.crashShutdown,
  SQLSTATE.cannotConnectNow,
  SQLSTATE.tooManyConnections,
  SQLSTATE.readOnlySqlTransaction,
]);

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The SQLSTATE of a pg error, if it has one. */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * True when the database could not be reached or could not serve (network failure,
 * connect timeout, server shutting down, class 08 connection exceptions, statement
 * timeout): the caller should see 503 and retry, not 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const state = sqlState(err);
  if (state !== undefined) return state.startsWith('08') || UNAVAILABLE_STATES.has(state);
  // pg reports lost connections and pool timeouts as plain Errors without a code.
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    err.message,
  );
}

/**
 * The data exceptions (class 22) that name a value a request carried: text too long (22001),
 * a number out of range (22003), an unreadable or impossible date or time (22007, 22008), a
 * bad time-zone offset (22009), a NUL or a character the encoding lacks (22021, 22P05), text
 * that is no number or uuid (22P02). The rest of the class (a sequence run out, a division by
 * zero) are the server's own failures: 500s, alerted on.
 */
const REFUSED_VALUE_STATES: ReadonlySet<string> = new Set([
  '22001',
  '22003',
  '22007',
  '22008',
  '22009',
  '22021',
  '22P02',
  '22P05',
]);

/**
 * True when PostgreSQL refused a value a request carried (REFUSED_VALUE_STATES): something
 * every check before the database let through. The caller sees 400, not 500.
 */
export function isValueRefused(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const state = sqlState(err);
  return state !== undefined && REFUSED_VALUE_STATES.has(state);
}

import { httpStatusOf, isErrorCode } from '@brand/shared/errors';

/** "4xx:<code>" strings, made once per code (the buffer keys outcomes by these strings). */
const CLIENT_ERRORS = new Map<string, string>();

/**
 * The outcome a request is counted under: 2xx, 304, 429 (a spent budget, also if a 200
 * carries rate_limited, as assistant answers did before issue 47), 5xx, or 4xx by error code. A 4xx without a code
 * of ours (a JSON-RPC envelope error) is "4xx:jsonrpc_error".
 */
export function outcomeOf(status: number, errorCode: string | undefined): string {
  if (errorCode === 'rate_limited' || status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400 || errorCode !== undefined) return clientError(errorCode ?? 'jsonrpc_error');
  return status === 304 ? '304' : '2xx';
}

/**
 * The HTTP status of an error code answered inside a 200 (the assistant's in-band refusals,
 * a tool's isError result): what the REST API would have answered.
 */
export function statusOf(errorCode: string): number {
  return isErrorCode(errorCode) ? httpStatusOf(errorCode) : 400;
}

function clientError(code: string): string {
  let s = CLIENT_ERRORS.get(code);
  if (s === undefined) {
    s = `4xx:${code}`;
    if (CLIENT_ERRORS.size < 256) CLIENT_ERRORS.set(code, s);
  }
  return s;
}

import { AppError, isAppError } from '../errors';
import type { Logger } from '../logger';
import { isDatabaseUnavailable, isValueRefused } from '../db/pgErrors';

/**
 * Classifies any failure once, at the gRPC boundary: an AppError passes through, an
 * unreachable database is service_unavailable (503 and retry), a value the database refused
 * invalid_parameter (a backstop: bad input is a 4xx even where a check was missed; each such
 * case is logged at the boundary with its cause, so the missing check is found and added),
 * anything else internal_error. Handlers and services just throw; no call site wraps its own.
 */
export function classifyFailure(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError(
      'service_unavailable',
      'A data store is temporarily unavailable; retry shortly.',
      { cause: err, retryAfterSeconds: 2 },
    );
  }
  if (isValueRefused(err)) {
    return new AppError(
      'invalid_parameter',
      'A value in the request cannot be taken (a control character, an impossible date, text too long or a number out of range).',
      { cause: err },
    );
  }
  return new AppError('internal_error', 'An internal error occurred.', { cause: err });
}

/**
 * Logs a classified failure as every server of a service does (unary calls and page streams):
 * a 500 or 503 at error level with its cause; a value the database refused at warn level, as a
 * check to add in front of it; a refusal the code made itself not at all.
 */
export function logFailure(log: Logger, failure: AppError, fields: object = {}): void {
  if (failure.code === 'internal_error' || failure.code === 'service_unavailable') {
    log.error({ ...fields, err: failure.cause ?? failure }, failure.message);
  } else if (isValueRefused(failure.cause)) {
    log.warn({ ...fields, err: failure.cause }, 'a value reached the database unchecked');
  }
}

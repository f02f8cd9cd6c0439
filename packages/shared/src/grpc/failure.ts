import { AppError, isAppError } from '../errors';
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
      'A value in the request cannot be taken (a control character, an impossible date or a number out of range).',
      { cause: err },
    );
  }
  return new AppError('internal_error', 'An internal error occurred.', { cause: err });
}

import { AppError, isAppError } from '../errors';
import { isDatabaseUnavailable } from '../db/pgErrors';

/**
 * Classifies any failure once, at the gRPC boundary: an AppError passes through, an
 * unreachable database is service_unavailable (503 and retry), anything else
 * internal_error. Handlers and services just throw; no call site wraps its own.
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
  return new AppError('internal_error', 'An internal error occurred.', { cause: err });
}

import { AppError, isErrorCode, type FieldIssue } from '@brand/shared/errors';
import type { PageFailureMessage } from '@brand/shared/grpc';

/** What a page's Retry-After says when the service could not answer it. */
const RETRY_AFTER_SECONDS = 1;

/** 503 service_unavailable with Retry-After: the service could not answer in time (or at all). */
export function unavailable(message: string): AppError {
  return new AppError('service_unavailable', `${message} Retry shortly.`, {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

export function cancelled(): AppError {
  return new AppError('service_unavailable', 'The page was cancelled: its client went away.', {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

/** A failure the service answered, as fromServiceError reads one from trailing metadata. */
export function failureOf(failure: PageFailureMessage): AppError {
  if (!isErrorCode(failure.code))
    return new AppError('internal_error', 'An internal error occurred.');
  let details: FieldIssue[] | undefined;
  if (failure.details_json !== '') {
    try {
      const parsed: unknown = JSON.parse(failure.details_json);
      if (Array.isArray(parsed)) details = parsed as FieldIssue[];
    } catch {
      details = undefined;
    }
  }
  return new AppError(failure.code, failure.message, {
    details,
    retryAfterSeconds: failure.retry_after_seconds > 0 ? failure.retry_after_seconds : undefined,
  });
}

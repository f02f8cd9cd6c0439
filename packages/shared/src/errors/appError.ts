import type { ErrorCode } from './codes';

/** One field-level problem, reported with validation_failed and invalid_parameter. */
export interface FieldIssue {
  /** Dotted path of the offending field or parameter, e.g. "limit" or "platforms.0". */
  field: string;
  message: string;
}

/**
 * An expected, classified failure. `message` is written for the client and is shown to
 * them as is, so it must never contain internals (SQL, stack, hostnames); put those in
 * `cause`, which is only logged.
 */
export class AppError extends Error {
  override readonly name = AppError.name;
  readonly code: ErrorCode;
  readonly details: FieldIssue[] | undefined;
  /** Seconds a client should wait, for rate_limited and service_unavailable. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { cause?: unknown; details?: FieldIssue[]; retryAfterSeconds?: number } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

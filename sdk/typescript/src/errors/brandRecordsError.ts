import type { ResponseMeta } from '../responseMeta.js';

/** The root of every error this package throws on purpose: `catch (e) { if (e instanceof BrandRecordsError) ... }`. */
export class BrandRecordsError extends Error {
  override name = 'BrandRecordsError';
  /**
   * For errors thrown by `campaignPlans.prepare`: the `request_id` the call used (yours, or
   * the one it minted). Retry later with this id and identical input, and a plan that was in
   * fact created is answered as a replay instead of being created twice.
   */
  planRequestId: string | undefined;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** One problem with one field or parameter, as the API reports it in `details`. */
export interface FieldIssue {
  field: string;
  message: string;
}

/** What an API error is built from: the parsed error body and the response it came in. */
export interface ApiErrorInit {
  code: string;
  message: string;
  details: FieldIssue[] | undefined;
  meta: ResponseMeta;
}

/**
 * The API answered with an error (`{"error": {"code", "message", "request_id", "details"?}}`).
 * Each code of the contract has its own subclass (InvalidKeyError, RateLimitedError, ...);
 * a code this version does not know arrives as a plain ApiError with that code.
 */
export class ApiError extends BrandRecordsError {
  override name = 'ApiError';
  /** The stable machine-readable code, e.g. `invalid_cursor`. */
  readonly code: string;
  /** The HTTP status. */
  readonly status: number;
  /** The request id (body `request_id`, else the `X-Request-Id` header): quote it to support. */
  readonly requestId: string | undefined;
  /** One entry per offending field or parameter, when the API gave them. */
  readonly details: FieldIssue[] | undefined;
  /** Status, headers, request id and rate-limit state of the response. */
  readonly meta: ResponseMeta;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.code = init.code;
    this.status = init.meta.status;
    this.requestId = init.meta.requestId;
    this.details = init.details;
    this.meta = init.meta;
  }
}

/** The request never got an answer: DNS, refused or reset connection, TLS, or a body cut off. */
export class ConnectionError extends BrandRecordsError {
  override name = 'ConnectionError';
}

/** No complete answer arrived within `timeoutMs` (per attempt). */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

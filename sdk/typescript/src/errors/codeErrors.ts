import type { components } from '../generated/openapi.js';
import { ApiError, type ApiErrorInit } from './brandRecordsError.js';

/** Every error code the API documents (from the OpenAPI document, so a new code fails the build here). */
export type ApiErrorCode = components['schemas']['Error']['error']['code'];

// One class per code, so callers branch with instanceof. The contract's codes first.

/** 401: no `Authorization: Bearer` header reached the API. */
export class MissingKeyError extends ApiError {
  override name = 'MissingKeyError';
}
/** 401: the key is unknown, revoked, or of the other environment. */
export class InvalidKeyError extends ApiError {
  override name = 'InvalidKeyError';
}
/** 403: the key lacks a permission (e.g. `campaigns:prepare`), or the brand is below Plus. */
export class InsufficientPermissionError extends ApiError {
  override name = 'InsufficientPermissionError';
}
/** 404: the resource name is not one of the six. */
export class UnknownResourceError extends ApiError {
  override name = 'UnknownResourceError';
}
/** 400: `limit`, `since` or another query parameter is invalid; see `details`. */
export class InvalidParameterError extends ApiError {
  override name = 'InvalidParameterError';
}
/** 400: the cursor is not one this brand and resource were given (tampered, foreign, truncated). */
export class InvalidCursorError extends ApiError {
  override name = 'InvalidCursorError';
}
/** 400: the campaign-plan input was refused; `details` has one entry per failing field. */
export class ValidationFailedError extends ApiError {
  override name = 'ValidationFailedError';
}
/** 409: the plan's `request_id` was used with different input, or its plan was cancelled. */
export class RequestConflictError extends ApiError {
  override name = 'RequestConflictError';
}
/**
 * 410 cursor_expired: an events-feed cursor or `after` position older than the kept history;
 * events after it may be gone. Start again (the first page, or `after: 0`) and reconcile.
 */
export class CursorExpiredError extends ApiError {
  override name = 'CursorExpiredError';
}
/**
 * 400 position_beyond_head: an events-feed `after` beyond the feed's head (the newest
 * position; the message names it). No event has that position yet, so it is not a
 * `next_after` this brand's feed gave: a checkpoint of another environment or brand, or a typo.
 * Follow from the head for new events only, or from `after: 0` for every event kept.
 */
export class PositionBeyondHeadError extends ApiError {
  override name = 'PositionBeyondHeadError';
}
/** 422: the brand already holds the maximum of pending plans; complete or cancel some first. */

export class PendingPlanLimitError extends ApiError {
  override name = 'PendingPlanLimitError';
}
/** An error whose response said how long to wait (`Retry-After`). */
export class RetryAfterError extends ApiError {
  override name = 'RetryAfterError';
  /** From `Retry-After`: wait at least this long before the next request. */
  readonly retryAfterSeconds: number | undefined;
  constructor(init: ApiErrorInit & { retryAfterSeconds?: number | undefined }) {
    super(init);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
/** 429: the brand's per-minute budget is spent. `retryAfterSeconds` says how long to wait. */
export class RateLimitedError extends RetryAfterError {
  override name = 'RateLimitedError';
}
/** 503: a backing service is briefly unreachable; retry later (`retryAfterSeconds` when given). */
export class ServiceUnavailableError extends RetryAfterError {
  override name = 'ServiceUnavailableError';
}
/** 500: the API failed; the body never carries internals. Quote `requestId` to support. */
export class InternalError extends ApiError {
  override name = 'InternalError';
}

// Codes the API sends outside the contract's list: transport refusals and the admin surface.

/** 401 from admin surfaces; not sent to API keys. */
export class UnauthenticatedError extends ApiError {
  override name = 'UnauthenticatedError';
}
/** 403: a browser `Origin` that is not allowed (keys belong on servers). */
export class ForbiddenOriginError extends ApiError {
  override name = 'ForbiddenOriginError';
}
/**
 * 403: the key works only from its allowed networks, and this request came from elsewhere
 * (the message names the address the API saw). Not retried: ask a brand owner to add the
 * network, or send the request from one of the key's networks.
 */
export class NetworkNotAllowedError extends ApiError {
  override name = 'NetworkNotAllowedError';
}
/**
 * 404: no such path, or no such record: `retrieve` of an id the key's brand has no record of
 * (another brand's id and an id that exists nowhere alike).
 */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 405: the method is not served on this path. */
export class MethodNotAllowedError extends ApiError {
  override name = 'MethodNotAllowedError';
}
/** 400: the body is not JSON. */
export class MalformedRequestError extends ApiError {
  override name = 'MalformedRequestError';
}
/** 409 from admin surfaces. */
export class AlreadyExistsError extends ApiError {
  override name = 'AlreadyExistsError';
}
/** 413: the body is too large. */
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
}
/** 415: the body is not `application/json`. */
export class UnsupportedMediaTypeError extends ApiError {
  override name = 'UnsupportedMediaTypeError';
}
/** 408: the request's headers or body did not arrive in time (the server's HTTP layer). */
export class RequestTimeoutError extends ApiError {
  override name = 'RequestTimeoutError';
}
/** 417: an `Expect` header other than 100-continue (the server's HTTP layer). */
export class ExpectationFailedError extends ApiError {
  override name = 'ExpectationFailedError';
}
/** 431: the request line and headers are over 16 KB (the server's HTTP layer). */
export class HeadersTooLargeError extends ApiError {
  override name = 'HeadersTooLargeError';
}
/** 422 from admin surfaces: the object is not in a state that allows the change. */
export class PreconditionFailedError extends ApiError {
  override name = 'PreconditionFailedError';
}
/** 422 from admin surfaces: the brand has the maximum of webhook receivers. */
export class ReceiverLimitError extends ApiError {
  override name = 'ReceiverLimitError';
}

type ApiErrorClass = new (
  init: ApiErrorInit & { retryAfterSeconds?: number | undefined },
) => ApiError;

/** The class of each documented code. `satisfies` makes a code added to the API a build error until it has one. */
export const API_ERROR_CLASSES = {
  missing_key: MissingKeyError,
  invalid_key: InvalidKeyError,
  unauthenticated: UnauthenticatedError,
  insufficient_permission: InsufficientPermissionError,
  forbidden_origin: ForbiddenOriginError,
  network_not_allowed: NetworkNotAllowedError,
  unknown_resource: UnknownResourceError,
  not_found: NotFoundError,
  method_not_allowed: MethodNotAllowedError,
  invalid_parameter: InvalidParameterError,
  invalid_cursor: InvalidCursorError,
  malformed_request: MalformedRequestError,
  validation_failed: ValidationFailedError,
  position_beyond_head: PositionBeyondHeadError,
  request_timeout: RequestTimeoutError,
  already_exists: AlreadyExistsError,
  request_conflict: RequestConflictError,
  cursor_expired: CursorExpiredError,
  payload_too_large: PayloadTooLargeError,
  unsupported_media_type: UnsupportedMediaTypeError,
  expectation_failed: ExpectationFailedError,
  precondition_failed: PreconditionFailedError,
  pending_plan_limit: PendingPlanLimitError,
  receiver_limit: ReceiverLimitError,
  rate_limited: RateLimitedError,
  headers_too_large: HeadersTooLargeError,
  internal_error: InternalError,
  service_unavailable: ServiceUnavailableError,
} as const satisfies Record<ApiErrorCode, ApiErrorClass>;

/** The class for an error status when the body named no code (e.g. an HTML page from a proxy). */
const BY_STATUS: Readonly<Record<number, ApiErrorCode>> = {
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

/**
 * The typed error for a failed response: the class of `code`, else of the status (429, 500,
 * 503), else a plain ApiError carrying whatever code (or `http_<status>`) there was.
 */
export function apiErrorFor(
  init: ApiErrorInit & { codeKnown: boolean; retryAfterSeconds: number | undefined },
): ApiError {
  const { codeKnown, ...rest } = init;
  const code = codeKnown ? init.code : BY_STATUS[init.meta.status];
  const Class: ApiErrorClass | undefined =
    code !== undefined && Object.hasOwn(API_ERROR_CLASSES, code)
      ? API_ERROR_CLASSES[code as ApiErrorCode]
      : undefined;
  if (!Class) return new ApiError(rest);
  return new Class({ ...rest, code: code ?? rest.code });
}

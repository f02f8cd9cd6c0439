import { status } from '@grpc/grpc-js';

/**
 * Every error code a client or operator can see. The public ones are the contract's
 * snake_case words (docs/contract.md#errors); the rest serve the admin RPCs and
 * transport-level refusals. Each code carries its HTTP status and its gRPC status, so a
 * refusal decided deep in a service reaches REST and MCP clients unchanged.
 */
export const ERROR_CODES = {
  missing_key: { http: 401, grpc: status.UNAUTHENTICATED },
  invalid_key: { http: 401, grpc: status.UNAUTHENTICATED },
  unauthenticated: { http: 401, grpc: status.UNAUTHENTICATED },
  /** A console sign-in link that is unknown, already used or expired (one answer for all). */
  invalid_sign_in_link: { http: 401, grpc: status.UNAUTHENTICATED },
  /** A console session that is unknown, ended or expired. */
  invalid_session: { http: 401, grpc: status.UNAUTHENTICATED },
  /** A passkey answer that does not verify: unknown passkey, used or expired challenge, bad signature or counter. */
  invalid_passkey: { http: 401, grpc: status.UNAUTHENTICATED },
  /** An SSO callback whose state is unknown, used, expired, or was started by another browser. */
  invalid_sso_state: { http: 400, grpc: status.INVALID_ARGUMENT },
  /** An SSO sign-in the identity provider or records refused (token, email, domain, membership). */
  sso_refused: { http: 401, grpc: status.UNAUTHENTICATED },
  /** A back-channel logout token that does not verify (signature, iss, aud, iat, event, sub/sid). */
  invalid_logout_token: { http: 400, grpc: status.INVALID_ARGUMENT },
  insufficient_permission: { http: 403, grpc: status.PERMISSION_DENIED },
  forbidden_origin: { http: 403, grpc: status.PERMISSION_DENIED },
  /**
   * A valid key presented from an address outside its allowed networks (issue 63): the key works
   * only from the networks its owner gave it. Charged to the address, like a refused key.
   */
  network_not_allowed: { http: 403, grpc: status.PERMISSION_DENIED },
  /**
   * An act on a person's address (its passkeys, its sessions beyond one brand) from a session
   * that does not prove the address: one opened by a brand's single sign-on (issue 42).
   */
  address_proof_required: { http: 403, grpc: status.PERMISSION_DENIED },
  unknown_resource: { http: 404, grpc: status.NOT_FOUND },
  not_found: { http: 404, grpc: status.NOT_FOUND },
  /** No brand has single sign-on for this address (or several do: use the brand's SSO link). */
  sso_not_configured: { http: 404, grpc: status.NOT_FOUND },
  method_not_allowed: { http: 405, grpc: status.UNIMPLEMENTED },
  invalid_parameter: { http: 400, grpc: status.INVALID_ARGUMENT },
  invalid_cursor: { http: 400, grpc: status.INVALID_ARGUMENT },
  malformed_request: { http: 400, grpc: status.INVALID_ARGUMENT },
  validation_failed: { http: 400, grpc: status.INVALID_ARGUMENT },
  /**
   * An events-feed `after` beyond the feed's head (docs/api.md "Events"): no event has that
   * position yet, so it is no position this brand's feed gave (another environment's checkpoint,
   * a typo). Answered empty, a follower would wait, then skip every event up to it.
   */
  position_beyond_head: { http: 400, grpc: status.OUT_OF_RANGE },
  /**
   * The request's headers or body did not arrive within the server's deadline (a stalled or
   * slow client): answered by the HTTP layer itself, before or instead of the route.
   */
  request_timeout: { http: 408, grpc: status.INVALID_ARGUMENT },
  already_exists: { http: 409, grpc: status.ALREADY_EXISTS },
  request_conflict: { http: 409, grpc: status.ALREADY_EXISTS },
  /**
   * An events-feed cursor or position older than the kept history (docs/api.md "Events"): the
   * events after it may be gone, so reading on would be a silent gap. Start again.
   */
  cursor_expired: { http: 410, grpc: status.OUT_OF_RANGE },
  payload_too_large: { http: 413, grpc: status.INVALID_ARGUMENT },
  unsupported_media_type: { http: 415, grpc: status.INVALID_ARGUMENT },
  /** An Expect header other than 100-continue: answered by the HTTP layer itself. */
  expectation_failed: { http: 417, grpc: status.INVALID_ARGUMENT },
  precondition_failed: { http: 422, grpc: status.FAILED_PRECONDITION },
  pending_plan_limit: { http: 422, grpc: status.FAILED_PRECONDITION },
  receiver_limit: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** A brand has as many audit streams as it may (issue 63): remove one first. */
  audit_stream_limit: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** A brand has as many live API keys as it may: revoke or expire one first. */
  key_limit: { http: 422, grpc: status.FAILED_PRECONDITION },
  /**
   * The brand requires every new key to have allowed networks (its key policy, issue 63), and
   * none were given (or a key's list would be emptied).
   */
  key_networks_required: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** A receiver already has a signing-secret rotation pending: switch or cancel it first. */
  rotation_pending: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** A receiver has no signing-secret rotation pending (none started, cancelled, or switched). */
  no_rotation: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** The receiver is disabled; enable it first (retry now, recover since). */
  receiver_disabled: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** The key is revoked or expired: it cannot be rolled and its expiry cannot change. */
  key_inactive: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** The change would leave a brand without an owner. */
  last_owner: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** The brand is below Plus or not verified: the Developers area is closed to it. */
  brand_not_eligible: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** The brand requires a passkey or SSO, and the session was opened by an emailed link. */
  sign_in_method_required: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** The change needs a session opened by a passkey (or SSO), not by an emailed link. */
  passkey_session_required: { http: 422, grpc: status.FAILED_PRECONDITION },
  /**
   * A brand's identity provider that records will not use: its discovery document names an
   * endpoint outside the egress policy or the issuer's origin (javascript:, data:, plain http, a
   * private address), or it answered too much, too slowly, or no usable document at all.
   */
  sso_provider_refused: { http: 422, grpc: status.FAILED_PRECONDITION },
  /**
   * Changing a brand's single sign-on while it is in use needs a fresh sign-in through it (the
   * acting owner's session opened by it within the last ten minutes).
   */
  sso_proof_required: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** The brand requires SSO: its connection can be neither removed nor disabled until that is lifted. */
  sso_required: { http: 422, grpc: status.FAILED_PRECONDITION },
  /**
   * Requiring single sign-on within a day of its provider (issuer or client id) being set: the
   * owners were mailed, and the requirement waits (issue 59).
   */
  sso_provider_too_new: { http: 422, grpc: status.FAILED_PRECONDITION },
  /** An invitation already accepted, declined, withdrawn or expired: it can no longer be answered. */
  invitation_closed: { http: 422, grpc: status.FAILED_PRECONDITION },
  rate_limited: { http: 429, grpc: status.RESOURCE_EXHAUSTED },
  /** The request line and headers together are over 16 KB (a huge header, a very long URL). */
  headers_too_large: { http: 431, grpc: status.INVALID_ARGUMENT },
  internal_error: { http: 500, grpc: status.INTERNAL },
  service_unavailable: { http: 503, grpc: status.UNAVAILABLE },
} as const satisfies Record<string, { http: number; grpc: status }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Codes only the console (the Developers area) and brandctl meet: signing in, sessions,
 * members, a receiver's secret rotation and recovery. The gateway never answers them, so the
 * public API description and the client leave them out.
 */
const CONSOLE_ONLY_CODES: readonly ErrorCode[] = [
  'invalid_sign_in_link',
  'invalid_session',
  'invalid_passkey',
  'sign_in_method_required',
  'passkey_session_required',
  'address_proof_required',
  'invalid_sso_state',
  'sso_refused',
  'invalid_logout_token',
  'sso_not_configured',
  'sso_required',
  'sso_provider_refused',
  'sso_proof_required',
  'sso_provider_too_new',
  'invitation_closed',
  'key_inactive',
  'last_owner',
  'brand_not_eligible',
  'rotation_pending',
  'no_rotation',
  'receiver_disabled',
  'audit_stream_limit',
  'key_limit',
  'key_networks_required',
];

/** Every code the public API (REST, MCP) can answer, in the table's order. */
export const API_ERROR_CODES = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
  (code) => !CONSOLE_ONLY_CODES.includes(code),
);

/**
 * Codes only the admin and internal RPCs answer (brandctl, one service calling another): a
 * caller credential refused, a member or brand that exists already, a plan or record change
 * that does not apply, the receiver limit. The gateway never renders them.
 */
const ADMIN_ONLY_CODES: readonly ErrorCode[] = [
  'unauthenticated',
  'already_exists',
  'precondition_failed',
  'receiver_limit',
];

/**
 * The codes the HTTP layer of the gateway and the console answers before any route reads the
 * request (createPublicHttpServer, @brand/shared/httpServer; malformed_request too, which the
 * routes also answer). The API description lists them; the request log never holds them.
 */
export const HTTP_LAYER_CODES: readonly ErrorCode[] = [
  'request_timeout',
  'expectation_failed',
  'headers_too_large',
];

/**
 * Every code the gateway's routes answer (REST and MCP), in the table's order: what its
 * request log can hold and what the API description lists by status. Issue 35: the console's
 * request-log filter offered codes the API never returns.
 */
export const GATEWAY_ERROR_CODES = API_ERROR_CODES.filter(
  (code) => !ADMIN_ONLY_CODES.includes(code) && !HTTP_LAYER_CODES.includes(code),
);

/**
 * The codes a status is answered with, by the gateway's routes (GATEWAY_ERROR_CODES) or its
 * HTTP layer (HTTP_LAYER_CODES), e.g. 429 → ['rate_limited']: what the API description lists.
 */
export function gatewayCodesOfStatus(http: number): ErrorCode[] {
  return API_ERROR_CODES.filter(
    (code) =>
      (GATEWAY_ERROR_CODES.includes(code) || HTTP_LAYER_CODES.includes(code)) &&
      ERROR_CODES[code].http === http,
  );
}

/** True when `value` is one of our error codes (used on codes arriving over the wire). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** The HTTP status a code is rendered with. */
export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].http;
}

/** The gRPC status a code travels with. */
export function grpcStatusOf(code: ErrorCode): status {
  return ERROR_CODES[code].grpc;
}

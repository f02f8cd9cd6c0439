/**
 * The brand's rate-limit state as the gateway reports it on every counted response, in the
 * IETF RateLimit fields: `RateLimit-Policy: "brand";q=60;w=60` and `RateLimit: "brand";r=59;t=60`.
 */
export interface RateLimitInfo {
  /** The policy's name: `brand`, or `anonymous` for requests without a valid key. */
  policy: string;
  /** Requests allowed per window (`q`), when RateLimit-Policy was sent. */
  limit: number | undefined;
  /** Requests left in the current window (`r`). */
  remaining: number;
  /** Seconds until one more request frees up (`t`). */
  reset: number;
  /** The window in seconds (`w`), when RateLimit-Policy was sent. */
  window: number | undefined;
}

/** What every result and every API error carries about the HTTP response. */
export interface ResponseMeta {
  /** HTTP status. */
  status: number;
  /** `X-Request-Id`: quote it to support. */
  requestId: string | undefined;
  /** The brand's budget after this request (IETF RateLimit headers); undefined when absent. */
  rateLimit: RateLimitInfo | undefined;
  /** `ETag` of a list page (send it back with `poll`) or of a record; undefined when absent. */
  etag: string | undefined;
  /** The raw response headers. */
  headers: Headers;
}

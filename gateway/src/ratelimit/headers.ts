import type { ServerResponse } from 'node:http';
import { WINDOW_SECONDS, type RateLimitDecision } from './limiter';

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), on every
 * response that was counted against a budget:
 *   RateLimit-Policy: "brand";q=60;w=60   (quota per window, window in seconds)
 *   RateLimit: "brand";r=12;t=7           (units remaining, seconds until one more frees up)
 * plus Retry-After on a refusal.
 */
export function setRateLimitHeaders(
  res: Pick<ServerResponse, 'setHeader'>,
  policy: 'brand' | 'anonymous',
  d: RateLimitDecision,
): void {
  res.setHeader('RateLimit-Policy', `"${policy}";q=${d.limit};w=${WINDOW_SECONDS}`);
  res.setHeader('RateLimit', `"${policy}";r=${d.remaining};t=${d.resetSeconds}`);
  if (!d.allowed) res.setHeader('Retry-After', String(d.retryAfterSeconds));
}

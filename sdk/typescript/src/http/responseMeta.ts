import { parseRateLimit, type RateLimitInfo } from './rateLimitHeaders.js';

/** What every result and every API error carries about the HTTP response. */
export interface ResponseMeta {
  /** HTTP status. */
  status: number;
  /** `X-Request-Id`: quote it to support. */
  requestId: string | undefined;
  /** The brand's budget after this request (IETF RateLimit headers); undefined when absent. */
  rateLimit: RateLimitInfo | undefined;
  /** The raw response headers. */
  headers: Headers;
}

/** The meta of one response, from its status and headers. */
export function responseMeta(response: Pick<Response, 'status' | 'headers'>): ResponseMeta {
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    rateLimit: parseRateLimit(response.headers),
    headers: response.headers,
  };
}

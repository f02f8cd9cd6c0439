import type { ResponseMeta } from '../responseMeta.js';
import { parseRateLimit } from './rateLimitHeaders.js';

/** The meta of one response, from its status and headers. */
export function responseMeta(response: Pick<Response, 'status' | 'headers'>): ResponseMeta {
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    rateLimit: parseRateLimit(response.headers),
    etag: response.headers.get('etag') ?? undefined,
    headers: response.headers,
  };
}

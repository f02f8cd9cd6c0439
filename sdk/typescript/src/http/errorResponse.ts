import type { ApiError, FieldIssue } from '../errors/brandRecordsError.js';
import { apiErrorFor } from '../errors/codeErrors.js';
import { parseRetryAfterMs } from './retryPolicy.js';
import type { ResponseMeta } from '../responseMeta.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldIssues(value: unknown): FieldIssue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isRecord).map((d) => ({
    field: typeof d.field === 'string' ? d.field : '',
    message: typeof d.message === 'string' ? d.message : '',
  }));
}

/**
 * The typed error for a non-2xx response whose body text is `text`. Reads the API's
 * `{"error": {...}}`; anything else (an HTML page from a proxy, an empty body) still becomes
 * an ApiError with the status, so no failure escapes untyped.
 */
export function errorFromResponse(text: string, meta: ResponseMeta, nowMs: number): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const body = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
  const code = typeof body?.code === 'string' ? body.code : undefined;
  const retryAfterMs = parseRetryAfterMs(meta.headers.get('retry-after'), nowMs);
  return apiErrorFor({
    code: code ?? `http_${meta.status}`,
    codeKnown: code !== undefined,
    message:
      typeof body?.message === 'string'
        ? body.message
        : `The API answered HTTP ${meta.status} without an error body.`,
    details: fieldIssues(body?.details),
    meta: {
      ...meta,
      requestId: typeof body?.request_id === 'string' ? body.request_id : meta.requestId,
    },
    retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
  });
}

import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { JsonRpcErrorResponse } from '../mcp/jsonRpc';
import { ErrorBody } from './errorSchema';

/** Shared response pieces of the OpenAPI document. */
export const ref = (kind: 'headers' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** Headers on every API response (success and error). */
export const COMMON_HEADERS = {
  'X-Request-Id': ref('headers', 'X-Request-Id'),
  RateLimit: ref('headers', 'RateLimit'),
  'RateLimit-Policy': ref('headers', 'RateLimit-Policy'),
};

export const errorResponse = (
  description: string,
  extraHeaders: Record<string, unknown> = {},
): ResponseConfig => ({
  description,
  headers: { ...COMMON_HEADERS, ...extraHeaders },
  content: { 'application/json': { schema: ErrorBody } },
});

export const jsonRpcErrorResponse = (
  description: string,
  extraHeaders: Record<string, unknown> = {},
): ResponseConfig => ({
  description,
  headers: { ...COMMON_HEADERS, ...extraHeaders },
  content: { 'application/json': { schema: JsonRpcErrorResponse } },
});

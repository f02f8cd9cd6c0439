import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
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

/** An error answer: the REST error body, unless the endpoint renders errors otherwise (MCP). */
export const errorResponse = (
  description: string,
  extraHeaders: Record<string, unknown> = {},
  schema: z.ZodType = ErrorBody,
): ResponseConfig => ({
  description,
  headers: { ...COMMON_HEADERS, ...extraHeaders },
  content: { 'application/json': { schema } },
});

import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { COMMON_HEADERS, errorResponse, ref } from '../../openapi/responses';
import { JsonRpcErrorResponse, JsonRpcRequest, JsonRpcResponse } from './jsonRpc';

/** An error answer of this endpoint: a JSON-RPC error body, whatever the status. */
const jsonRpcErrorResponse = (description: string, extraHeaders: Record<string, unknown> = {}) =>
  errorResponse(description, extraHeaders, JsonRpcErrorResponse);

/**
 * An answer given before the key is read (the preflight's, forbidden_origin): it counts toward
 * no budget, so it carries no RateLimit or RateLimit-Policy (docs/contract.md#rate-limits).
 */
const REQUEST_ID_ONLY = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
const beforeKeyErrorResponse = (
  description: string,
  extraHeaders: Record<string, unknown> = {},
) => {
  const answer = jsonRpcErrorResponse(description);
  return { ...answer, headers: { ...REQUEST_ID_ONLY, ...extraHeaders } } as ResponseConfig;
};

/** The OpenAPI description of POST /api/mcp. */
export function describeMcp(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/api/mcp',
    operationId: 'mcp',
    tags: ['Assistant (MCP)'],
    summary: 'Model Context Protocol endpoint (JSON-RPC 2.0, stateless, JSON responses)',
    description:
      'Streamable HTTP MCP without sessions or server-sent events: every POST carries one JSON-RPC message (or, under protocol ' +
      '2025-03-26 only, a batch) and gets one JSON answer, whatever the Accept header says. Protocol versions 2025-03-26, ' +
      '2025-06-18 and 2025-11-25; `initialize` with any other version is answered with 2025-11-25. Methods: `initialize`, ' +
      '`ping`, `tools/list`, `tools/call`; notifications get 202 with no body. Tools: `list_campaigns`, `list_submissions`, ' +
      '`list_payouts`, `list_deposits`, `list_conversions`, `list_links` (arguments `limit`, `cursor`, `since`, as in REST), and ' +
      '`prepare_campaign_plan` for keys with the `campaigns:prepare` permission. Validation, permission and business refusals ' +
      'inside `tools/call` are HTTP 200 results with `isError: true` and the REST error code. GET and DELETE are 405. ' +
      'A browser page on an origin MCP_ALLOWED_ORIGINS allows gets CORS: its preflight is answered (OPTIONS) and every answer, ' +
      'errors included, carries `Access-Control-Allow-Origin` and exposes X-Request-Id, RateLimit, RateLimit-Policy, ' +
      'Retry-After, WWW-Authenticate and Allow (no credentials mode: the key goes in Authorization). ' +
      'The brand rate limit is shared with REST; each POST counts one request (a batch, one per message). Over the limit every ' +
      'POST, `tools/call` included, is HTTP 429 with Retry-After and a JSON-RPC error whose `error.data` carries ' +
      '`code: rate_limited` and `retry_after` (seconds).',
    security: [{ bearerAuth: [] }],
    request: {
      headers: z.object({
        'MCP-Protocol-Version': z.enum(['2025-03-26', '2025-06-18', '2025-11-25']).optional().meta({
          description: 'The negotiated version; any other value is 400. Absent means 2025-03-26.',
        }),
        Origin: z.string().optional().meta({
          description: 'When present, it must be on the configured allow-list (else 403).',
        }),
      }),
      body: {
        required: true,
        content: {
          'application/json': {
            schema: z.union([JsonRpcRequest, z.array(JsonRpcRequest).min(1)]),
          },
        },
      },
    },
    responses: {
      200: {
        description:
          'The JSON-RPC response (an array of them for a batch). Protocol errors use the standard codes -32700, -32600, -32601, -32602, -32603.',
        headers: COMMON_HEADERS as ResponseConfig['headers'],
        content: {
          'application/json': { schema: z.union([JsonRpcResponse, z.array(JsonRpcResponse)]) },
        },
      },
      202: {
        description: 'The message held only notifications (or responses); no body.',
        headers: COMMON_HEADERS as ResponseConfig['headers'],
      },
      400: jsonRpcErrorResponse(
        'Malformed JSON (-32700), an invalid JSON-RPC message or a batch where batches are not allowed (-32600), or an unsupported MCP-Protocol-Version.',
      ),
      401: jsonRpcErrorResponse(
        'No valid key; `error.data.code` is `missing_key` or `invalid_key`.',
        {
          'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
        },
      ),
      403: jsonRpcErrorResponse(
        '`forbidden_origin` (Origin not allowed; answered before the key is read, with no RateLimit headers), ' +
          '`insufficient_permission`, or `network_not_allowed`: the key works only from its allowed networks (charged to the client address, with its RateLimit headers).',
      ),
      413: jsonRpcErrorResponse('The body exceeds the size limit.'),
      415: jsonRpcErrorResponse('Content-Type is not application/json.'),
      429: jsonRpcErrorResponse(
        "`rate_limited`, for every method (tools/call included): `error.data.retry_after` is the Retry-After delay in seconds; the id is the request's (null for a batch).",
        {
          'Retry-After': ref('headers', 'Retry-After'),
        },
      ),
      503: jsonRpcErrorResponse('A backing service is unavailable while authenticating.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
    },
  });

  // The CORS preflight a browser sends before its POST (cors.ts); no key: preflights carry none.
  registry.registerPath({
    method: 'options',
    path: '/api/mcp',
    operationId: 'mcpPreflight',
    tags: ['Assistant (MCP)'],
    summary: 'CORS preflight for browser pages on an allowed origin',
    description:
      'Answered for the origins MCP_ALLOWED_ORIGINS allows: 204 granting that origin POST (GET and DELETE too, so a page ' +
      'can read their 405) with the headers a Streamable HTTP client sends (Authorization, Content-Type, Accept, ' +
      'MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID). An origin off the list gets the 403 its POST would, with no ' +
      'CORS header; an OPTIONS that is no preflight is 405. No answer here carries RateLimit headers: each comes ' +
      'before the key is read and counts toward no budget.',
    security: [],
    request: {
      headers: z.object({
        Origin: z.string().meta({ description: 'The page origin; it must be on the allow-list.' }),
        'Access-Control-Request-Method': z
          .string()
          .meta({ description: 'The method the page will send.' }),
        'Access-Control-Request-Headers': z
          .string()
          .optional()
          .meta({ description: 'The headers the page will send.' }),
      }),
    },
    responses: {
      204: {
        description:
          "The grant: Access-Control-Allow-Origin (the request's Origin), -Allow-Methods, -Allow-Headers, -Max-Age; Vary: Origin.",
        headers: {
          ...REQUEST_ID_ONLY,
          'Access-Control-Allow-Origin': {
            schema: { type: 'string' },
            description: 'The requesting origin.',
          },
          'Access-Control-Allow-Methods': {
            schema: { type: 'string', example: 'POST, GET, DELETE' },
          },
          'Access-Control-Allow-Headers': { schema: { type: 'string' } },
          'Access-Control-Max-Age': { schema: { type: 'integer', example: 7200 } },
          Vary: { schema: { type: 'string', example: 'Origin' } },
        },
      },
      403: beforeKeyErrorResponse(
        '`forbidden_origin`: the Origin is not on the allow-list; no CORS header, no RateLimit headers.',
      ),
      405: beforeKeyErrorResponse(
        '`method_not_allowed`: an OPTIONS that is no preflight (no Origin, or no Access-Control-Request-Method); no RateLimit headers.',
        {
          Allow: { schema: { type: 'string', example: 'POST' } },
        },
      ),
    },
  });
}

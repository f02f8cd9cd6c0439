import {
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type ResponseConfig,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT, RESOURCES, type ResourceName } from '@brand/shared/resources';
import { stringify } from 'yaml';
import { JsonRpcErrorResponse, JsonRpcRequest, JsonRpcResponse } from '../mcp/jsonRpc';
import { ListQuery } from '../records/listParams';
import { PAGE_SCHEMAS } from '../records/recordSchemas';
import { API_DESCRIPTION } from './description';
import { ErrorBody } from './errorSchema';

const ref = (kind: 'headers' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** Headers on every API response (success and error). */
const COMMON_HEADERS = {
  'X-Request-Id': ref('headers', 'X-Request-Id'),
  RateLimit: ref('headers', 'RateLimit'),
  'RateLimit-Policy': ref('headers', 'RateLimit-Policy'),
};

const errorResponse = (
  description: string,
  extraHeaders: Record<string, unknown> = {},
): ResponseConfig => ({
  description,
  headers: { ...COMMON_HEADERS, ...extraHeaders },
  content: { 'application/json': { schema: ErrorBody } },
});

const jsonRpcErrorResponse = (
  description: string,
  extraHeaders: Record<string, unknown> = {},
): ResponseConfig => ({
  description,
  headers: { ...COMMON_HEADERS, ...extraHeaders },
  content: { 'application/json': { schema: JsonRpcErrorResponse } },
});

const RESOURCE_SUMMARIES: Record<ResourceName, string> = {
  campaigns: "List the brand's campaigns",
  submissions: "List creators' submissions (status pending, approved or rejected)",
  payouts: 'List payouts to creators (status pending, processing, paid or failed)',
  deposits: "List the brand's deposits",
  conversions: 'List tracked conversions',
  links: 'List tracked creator links',
};

function registerComponents(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A brand API key: `Authorization: Bearer bk_live_...`. The scheme must be spelled exactly `Bearer`. The key selects the brand.',
  });
  registry.registerComponent('headers', 'X-Request-Id', {
    description:
      'Identifies the request in logs; echoed from the request when it is 8-128 safe characters, otherwise minted.',
    schema: { type: 'string' },
  });
  registry.registerComponent('headers', 'RateLimit', {
    description:
      'IETF RateLimit field: `"brand";r=<remaining>;t=<seconds until a unit frees up>`, or `"anonymous";...` for requests without a valid key.',
    schema: { type: 'string', examples: ['"brand";r=59;t=60'] },
  });
  registry.registerComponent('headers', 'RateLimit-Policy', {
    description: 'IETF RateLimit-Policy field: `"brand";q=<requests per window>;w=60`.',
    schema: { type: 'string', examples: ['"brand";q=60;w=60'] },
  });
  registry.registerComponent('headers', 'Retry-After', {
    description: 'Whole seconds to wait before retrying. Honour it.',
    schema: { type: 'integer', minimum: 1 },
  });
  registry.registerComponent('headers', 'WWW-Authenticate', {
    description: 'RFC 6750 challenge: `Bearer realm="api"`.',
    schema: { type: 'string' },
  });
}

function registerRecordPaths(registry: OpenAPIRegistry): void {
  const commonErrors = {
    400: errorResponse(
      '`invalid_parameter` (limit, since or an unknown parameter) or `invalid_cursor`.',
    ),
    401: errorResponse(
      '`missing_key` (no `Authorization: Bearer` header) or `invalid_key` (unknown, revoked, or of the other environment).',
      {
        'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
      },
    ),
    403: errorResponse('`insufficient_permission`: the brand is not on Plus or above.'),
    429: errorResponse(
      '`rate_limited`: the brand (or, without a valid key, the client address) spent its budget.',
      {
        'Retry-After': ref('headers', 'Retry-After'),
      },
    ),
    500: errorResponse(
      '`internal_error`; never carries internals. Quote the request id to support.',
    ),
    503: errorResponse(
      '`service_unavailable`: a backing service is briefly unreachable; retry with backoff.',
      {
        'Retry-After': ref('headers', 'Retry-After'),
      },
    ),
  };
  for (const resource of RESOURCES) {
    registry.registerPath({
      method: 'get',
      path: `/api/v1/${resource}`,
      operationId: `list_${resource}`,
      tags: ['Records'],
      summary: RESOURCE_SUMMARIES[resource],
      description:
        `One page of ${resource}, newest first (by created_at, then id). Default page size ${DEFAULT_LIMIT}, maximum ${MAX_LIMIT}. ` +
        'A full page carries `next_cursor`; pass it back as `cursor` for the next page, until a page comes back without one. ' +
        'Walking the cursor reads each record exactly once, even while records are added or change status.',
      security: [{ bearerAuth: [] }],
      request: { query: ListQuery },
      responses: {
        200: {
          description: 'One page of records.',
          headers: COMMON_HEADERS as ResponseConfig['headers'],
          content: { 'application/json': { schema: PAGE_SCHEMAS[resource] } },
        },
        ...commonErrors,
      },
    });
  }
  registry.registerPath({
    method: 'get',
    path: '/api/v1/{resource}',
    operationId: 'list_records',
    tags: ['Records'],
    summary: 'List any resource by name',
    description:
      `The generic form of the six list operations above; \`resource\` is one of ${RESOURCES.join(', ')}. ` +
      'Any other name is 404 `unknown_resource` (after authentication: an unauthenticated request is 401 whatever the name).',
    security: [{ bearerAuth: [] }],
    request: {
      params: z.object({
        resource: z
          .string()
          .meta({ description: `One of ${RESOURCES.join(', ')}.`, examples: ['campaigns'] }),
      }),
      query: ListQuery,
    },
    responses: {
      200: {
        description: 'One page of records of the named resource.',
        headers: COMMON_HEADERS as ResponseConfig['headers'],
        content: { 'application/json': { schema: z.union(RESOURCES.map((r) => PAGE_SCHEMAS[r])) } },
      },
      ...commonErrors,
      404: errorResponse('`unknown_resource`: the name is not one of the six resources.'),
    },
  });
}

function registerMcpPath(registry: OpenAPIRegistry): void {
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
      '`prepare_campaign_plan` for keys with the `campaigns:prepare` permission. Refusals inside `tools/call` (bad arguments, ' +
      'permissions, rate limit) are HTTP 200 results with `isError: true` and the REST error code. GET and DELETE are 405. ' +
      'The brand rate limit is shared with REST; each POST counts one request (a batch, one per message).',
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
        '`forbidden_origin` (Origin not allowed) or `insufficient_permission`.',
      ),
      413: jsonRpcErrorResponse('The body exceeds the size limit.'),
      415: jsonRpcErrorResponse('Content-Type is not application/json.'),
      429: jsonRpcErrorResponse(
        '`rate_limited` for methods other than tools/call (which answers with an isError result).',
        {
          'Retry-After': ref('headers', 'Retry-After'),
        },
      ),
      503: jsonRpcErrorResponse('A backing service is unavailable while authenticating.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
    },
  });
}

function registerOperationalPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/openapi/service.yaml',
    operationId: 'openapi_document',
    tags: ['Service'],
    summary: 'This document',
    description:
      'Public (no key). Counted against the per-address budget for unauthenticated requests.',
    security: [],
    responses: {
      200: {
        description: 'The OpenAPI 3.1 description of the service.',
        headers: COMMON_HEADERS as ResponseConfig['headers'],
        content: { 'application/yaml': { schema: z.string() } },
      },
      429: errorResponse('`rate_limited` for this client address.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    operationId: 'healthz',
    security: [],
    tags: ['Service'],
    summary: 'Liveness: the process is up',
    responses: {
      200: {
        description: 'Alive.',
        content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } },
      },
    },
  });
  const readiness = z
    .object({
      status: z.enum(['ready', 'not_ready']),
      checks: z.object({
        records: z.enum(['ok', 'unavailable']),
        redis: z.enum(['ok', 'degraded']).meta({
          description:
            'Without Redis, rate limits fall back to per-instance memory; not a readiness failure.',
        }),
        shutting_down: z.boolean(),
      }),
    })
    .meta({ id: 'Readiness' });
  registry.registerPath({
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    security: [],
    tags: ['Service'],
    summary: 'Readiness: dependencies reachable and not shutting down',
    responses: {
      200: {
        description: 'Ready to serve.',
        content: { 'application/json': { schema: readiness } },
      },
      503: { description: 'Not ready.', content: { 'application/json': { schema: readiness } } },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    security: [],
    tags: ['Service'],
    summary: 'Prometheus metrics',
    description: 'For the cluster, not for clients: expose it only inside the cluster.',
    responses: {
      200: {
        description: 'Prometheus text exposition format.',
        content: { 'text/plain': { schema: z.string() } },
      },
    },
  });
}

/** Builds the OpenAPI 3.1 document from the zod schemas that validate and shape the API. */
export function buildOpenApiDocument(
  opts: { serverUrl?: string } = {},
): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registerComponents(registry);
  registerRecordPaths(registry);
  registerMcpPath(registry);
  registerOperationalPaths(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Brand Records API',
      version: '1.0.0',
      description: API_DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Brand Records API support' },
    },
    servers: [
      {
        url: opts.serverUrl ?? '/',
        description: opts.serverUrl ? 'This deployment' : 'The origin serving this document',
      },
    ],
    tags: [
      { name: 'Records', description: 'The six read-only resources.' },
      { name: 'Assistant (MCP)', description: 'The assistant connection.' },
      { name: 'Service', description: 'The description file, probes and metrics.' },
    ],
  });
}

/** The document as YAML, as served at /openapi/service.yaml. */
export function renderOpenApiYaml(opts: { serverUrl?: string } = {}): string {
  return stringify(buildOpenApiDocument(opts), { aliasDuplicateObjects: false, lineWidth: 0 });
}

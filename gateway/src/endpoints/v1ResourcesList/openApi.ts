import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT, RESOURCES, type ResourceName } from '@brand/shared/resources';
import { COMMON_HEADERS, errorResponse, ref } from '../../openapi/responses';
import { PAGE_SCHEMAS } from '../../records/recordSchemas';
import { ListQuery } from './input';

const RESOURCE_SUMMARIES: Record<ResourceName, string> = {
  campaigns: "List the brand's campaigns",
  submissions: "List creators' submissions (status pending, approved or rejected)",
  payouts: 'List payouts to creators (status pending, processing, paid or failed)',
  deposits: "List the brand's deposits",
  conversions: 'List tracked conversions',
  links: 'List tracked creator links',
};

/** If-None-Match, the request header of a poll. */
const ConditionalHeaders = z.object({
  'If-None-Match': z
    .string()
    .optional()
    .meta({
      description:
        'The `ETag` of a page you hold (or several, comma-separated; `W/` prefixes are compared weakly, RFC 9110). While the page is unchanged the answer is 304 with no body. `*` is ignored (a list page always exists).',
      examples: ['"x3Jd0aQ9sLw2VbN7cPz1mKf4YhT"'],
    }),
});

/** The page's headers: every response's, plus its ETag. */
const PAGE_HEADERS = { ...COMMON_HEADERS, ETag: ref('headers', 'ETag') };

/** 304: the poll's page is unchanged. */
const NOT_MODIFIED: ResponseConfig = {
  description:
    '`If-None-Match` lists the current ETag: the page is unchanged. No body; the same `ETag`, `Cache-Control: no-store` and the RateLimit fields. Counts against the rate limit like any request.',
  headers: PAGE_HEADERS,
};

/** The OpenAPI operations: the six concrete resources and the generic form. */
export function describeV1ResourcesList(registry: OpenAPIRegistry): void {
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
    403: errorResponse(
      '`insufficient_permission`: the brand is not on Plus or above; `network_not_allowed`: the key works only from its allowed networks.',
    ),
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
        'Walking the cursor reads each record exactly once, even while records are added or change status. ' +
        'Every page carries an `ETag`; to poll cheaply, send it back as `If-None-Match` and get 304 (no body) while nothing changed.',
      security: [{ bearerAuth: [] }],
      request: { query: ListQuery, headers: ConditionalHeaders },
      responses: {
        200: {
          description: 'One page of records.',
          headers: PAGE_HEADERS as ResponseConfig['headers'],
          content: { 'application/json': { schema: PAGE_SCHEMAS[resource] } },
        },
        304: NOT_MODIFIED,
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
      headers: ConditionalHeaders,
    },
    responses: {
      200: {
        description: 'One page of records of the named resource.',
        headers: PAGE_HEADERS as ResponseConfig['headers'],
        content: { 'application/json': { schema: z.union(RESOURCES.map((r) => PAGE_SCHEMAS[r])) } },
      },
      304: NOT_MODIFIED,
      ...commonErrors,
      404: errorResponse('`unknown_resource`: the name is not one of the six resources.'),
    },
  });
}

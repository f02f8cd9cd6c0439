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

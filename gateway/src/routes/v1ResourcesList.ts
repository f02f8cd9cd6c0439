import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { AppError, quoteInput } from '@brand/shared/errors';
import {
  DEFAULT_LIMIT,
  isResourceName,
  MAX_LIMIT,
  parseLimitString,
  RESOURCES,
  type ResourceName,
} from '@brand/shared/resources';
import type { AccessGate } from '../auth/accessGate';
import type { RecordsApi } from '../clients/recordsClient';
import { methodNotAllowed } from '../http/methodNotAllowed';
import { identityOf, requireApiKey } from '../http/requireApiKey';
import { requestIdOf } from '../http/requestId';
import { COMMON_HEADERS, errorResponse, ref } from '../openapi/responses';
import { cursor, limit, parseListParams, since, type ListParams } from '../records/listParams';
import { listPage, pageBytes } from '../records/listPage';
import { PAGE_SCHEMAS } from '../records/recordSchemas';

/**
 * A query-string limit through the shared rule (digits only, so "1.5", "-1", " 5" and "1e2"
 * are refused, never coerced); anything it refuses stays a string and fails `limit` below
 * with the one message.
 */
const limitFromQuery = (v: unknown): unknown =>
  typeof v === 'string' ? (parseLimitString(v) ?? v) : v;

/** GET /api/v1/{resource} query parameters. Unknown parameters are refused, to catch typos. */
export const ListQuery = z.strictObject({
  limit: z.preprocess(limitFromQuery, limit).optional(),
  cursor: cursor.optional(),
  since: since.optional(),
});

/**
 * The common queries (none, or only a valid `limit`) without a zod pass, which was a
 * measurable share of the gateway's CPU per page (BENCHMARKS.md); anything else, valid or
 * not, takes parseListParams and gets exactly its answer.
 */
function commonListParams(query: Record<string, unknown>): ListParams | undefined {
  const keys = Object.keys(query);
  if (keys.length === 0) return {};
  if (keys.length !== 1 || keys[0] !== 'limit' || typeof query.limit !== 'string') return undefined;
  const n = parseLimitString(query.limit);
  return n === undefined ? undefined : { limit: n };
}

/**
 * GET /api/v1/{resource}: one page of the brand's records (SPEC 4.1).
 * Order of checks, by design: authentication and the brand's rate limit come first
 * (requireApiKey), so an unauthenticated caller gets 401 for any path under /api/v1 (the
 * resource names are public in the OpenAPI file anyway) and every authenticated request
 * counts; then 404 unknown_resource; then parameter validation.
 */
export function registerV1ResourcesList(
  router: Router,
  deps: { gate: AccessGate; records: RecordsApi },
): void {
  router.get('/api/v1/:resource', requireApiKey(deps.gate), async (req, res) => {
    const resource = String(req.params.resource);
    if (!isResourceName(resource)) {
      throw new AppError(
        'unknown_resource',
        `Unknown resource ${quoteInput(resource)}; the resources are ${RESOURCES.join(', ')}.`,
      );
    }
    const query = req.query as Record<string, unknown>;
    const params = commonListParams(query) ?? parseListParams(ListQuery, query);
    const page = await listPage(deps.records, identityOf(res), resource, params, requestIdOf(res));
    // finished JSON bytes (records rendered once by the records service); no re-encoding
    res.type('application/json').send(pageBytes(page));
  });
  router.all('/api/v1/:resource', methodNotAllowed(['GET', 'HEAD']));
}

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

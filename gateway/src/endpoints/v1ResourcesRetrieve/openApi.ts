import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { RESOURCES, type ResourceName } from '@brand/shared/resources';
import { ErrorBody } from '../../openapi/errorSchema';
import { COMMON_HEADERS, errorResponse, ref } from '../../openapi/responses';
import { RECORD_SCHEMAS } from '../../records/recordSchemas';
import { RetrieveParams } from './input';

const SUMMARIES: Record<ResourceName, string> = {
  campaigns: 'Retrieve one campaign by id',
  submissions: "Retrieve one creator's submission by id",
  payouts: 'Retrieve one payout by id',
  deposits: 'Retrieve one deposit by id',
  conversions: 'Retrieve one conversion by id',
  links: 'Retrieve one tracked link by id',
};

/** A payout as the API answers it: the 200 example of the payouts operation. */
const PAYOUT_EXAMPLE = {
  id: 'po_3kTMd9Q0bXh7RzL2aP1c',
  campaign_id: 'cmp_8QeWd1LzR0aV5nT2mXy7',
  submission_id: 'sub_Jd0aQ9sLw2VbN7cPz1mK',
  creator_handle: 'mika.creates',
  amount: 250000,
  currency: 'PHP',
  method: 'gcash',
  status: 'paid',
  failure_reason: null,
  created_at: '2026-11-02T08:15:42.123456Z',
  updated_at: '2026-11-03T01:02:03.000001Z',
  paid_at: '2026-11-03T01:02:03.000001Z',
};

const NOT_FOUND_EXAMPLE = {
  error: {
    code: 'not_found',
    message: 'No payout with this id is visible to this key.',
    request_id: 'req_5wYt2LcQ8aHk3NzR7pVd',
  },
};

/** If-None-Match, the request header of a re-read. */
const ConditionalHeaders = z.object({
  'If-None-Match': z
    .string()
    .optional()
    .meta({
      description:
        'The `ETag` of the record you hold (or several, comma-separated; `W/` prefixes are compared weakly, RFC 9110). While no record of the resource changed the answer is 304 with no body. `*` is ignored.',
      examples: ['"q8Vn1sKd0LmZ3xTw7bRc5YhJ2pA"'],
    }),
});

const RECORD_HEADERS = { ...COMMON_HEADERS, ETag: ref('headers', 'ETag') };

const NOT_MODIFIED: ResponseConfig = {
  description:
    '`If-None-Match` lists the current ETag: no record of the resource changed since. No body; the same `ETag`, `Cache-Control: no-store` and the RateLimit fields. Counts against the rate limit like any request.',
  headers: RECORD_HEADERS,
};

/** The errors of every record operation. */
function errors(notFound: string): Record<number, ResponseConfig> {
  return {
    400: errorResponse(
      '`invalid_parameter`: a query parameter (a record takes none), or an id that cannot be one (empty, over 64 characters, a character outside A-Z a-z 0-9 _); `malformed_request`: broken percent-encoding.',
    ),
    401: errorResponse(
      '`missing_key` (no `Authorization: Bearer` header) or `invalid_key` (unknown, revoked, or of the other environment).',
      { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
    ),
    403: errorResponse(
      '`insufficient_permission`: the brand is not on Plus or above; `network_not_allowed`: the key works only from its allowed networks.',
    ),
    404: {
      description: notFound,
      headers: COMMON_HEADERS,
      content: { 'application/json': { schema: ErrorBody, example: NOT_FOUND_EXAMPLE } },
    },
    429: errorResponse(
      '`rate_limited`: the brand spent its budget (a record counts like a page).',
      { 'Retry-After': ref('headers', 'Retry-After') },
    ),
    500: errorResponse(
      '`internal_error`; never carries internals. Quote the request id to support.',
    ),
    503: errorResponse(
      '`service_unavailable`: a backing service is briefly unreachable; retry with backoff.',
      { 'Retry-After': ref('headers', 'Retry-After') },
    ),
  };
}

const NOT_FOUND =
  "`not_found`: the key's brand has no record of the resource with this id. Another brand's id, an id that exists nowhere and an id of another resource (`cmp_...` under payouts) get this same answer, byte for byte but for the request id, in the same time: the API never tells whether an id exists elsewhere.";

/** The OpenAPI operations: the six concrete resources and the generic form. */
export function describeV1ResourcesRetrieve(registry: OpenAPIRegistry): void {
  const description = (resource: string) =>
    `The ${resource} record with this id, in exactly the fields and form of its list's \`data\` items. ` +
    'The key alone selects the brand: an id that is not one of its records is 404 `not_found`, whatever the reason. ' +
    "Counts against the brand's rate limit like a page. Carries an `ETag` that moves with any change of a record of the resource (this one's status included); send it back as `If-None-Match` to be answered 304 (no body) while nothing changed.";
  for (const resource of RESOURCES) {
    registry.registerPath({
      method: 'get',
      path: `/api/v1/${resource}/{id}`,
      operationId: `retrieve_${resource}`,
      tags: ['Records'],
      summary: SUMMARIES[resource],
      description: description(resource),
      security: [{ bearerAuth: [] }],
      request: { params: RetrieveParams.pick({ id: true }), headers: ConditionalHeaders },
      responses: {
        200: {
          description: `The ${resource} record.`,
          headers: RECORD_HEADERS as ResponseConfig['headers'],
          content: {
            'application/json': {
              schema: RECORD_SCHEMAS[resource],
              ...(resource === 'payouts' ? { example: PAYOUT_EXAMPLE } : {}),
            },
          },
        },
        304: NOT_MODIFIED,
        ...errors(NOT_FOUND),
      },
    });
  }
  registry.registerPath({
    method: 'get',
    path: '/api/v1/{resource}/{id}',
    operationId: 'retrieve_record',
    tags: ['Records'],
    summary: 'Retrieve one record of any resource by id',
    description:
      `The generic form of the six retrieve operations above; \`resource\` is one of ${RESOURCES.join(', ')}. ` +
      'Any other name is 404 `unknown_resource` (after authentication: an unauthenticated GET is 401 whatever the name).',
    security: [{ bearerAuth: [] }],
    request: { params: RetrieveParams, headers: ConditionalHeaders },
    responses: {
      200: {
        description: 'The record of the named resource.',
        headers: RECORD_HEADERS as ResponseConfig['headers'],
        content: {
          'application/json': {
            schema: z.union(RESOURCES.map((r) => RECORD_SCHEMAS[r])),
            example: PAYOUT_EXAMPLE,
          },
        },
      },
      304: NOT_MODIFIED,
      ...errors(`${NOT_FOUND} \`unknown_resource\`: the name is not one of the six resources.`),
    },
  });
}

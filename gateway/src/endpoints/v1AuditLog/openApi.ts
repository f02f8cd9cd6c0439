import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT } from '@brand/shared/resources';
import { COMMON_HEADERS, errorResponse, ref } from '../../openapi/responses';

/** The query as the document shows it (input.ts's AuditLogQuery decides). */
const AuditLogQueryDoc = z.object({
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .meta({ description: `Entries per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` }),
  cursor: z.string().optional().meta({
    description:
      'Newest first: the `next_cursor` of the previous page; the page after it (older entries). Not with `after`.',
  }),
  after: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({
      description:
        'Following: the entries after this position, **oldest first**, and `next_after` (the position to store and send next). `0` starts at the oldest entry kept. Not with `cursor`.',
      examples: [0],
    }),
  kind: z.enum(['activity', 'request']).optional().meta({
    description:
      'Only activity (what people and the service did) or only requests (the API requests refused or failed).',
  }),
});

const ACTIVITY_EXAMPLE = {
  position: 42,
  id: 'act_3kTMd9Q0bXh7RzL2aP1c',
  kind: 'activity',
  brand_id: 'br_Qm3Zp8Lk2Vd0aW7nTc1x',
  created_at: '2026-11-25T07:30:00.123456Z',
  action: 'key.created',
  actor: { member_id: 'mem_8Hq2LmZ0aP3kTd9QbXr1', email: 'ana@acme.test' },
  subject_id: 'key_5wYt2LcQ8aHk3NzR7pVd',
  summary: 'Warehouse sync (bk_live_7Qx2, live), works from 203.0.113.0/24',
  client_address: '198.51.100.23',
  user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15',
  source: 'records',
  test: false,
};

const REQUEST_EXAMPLE = {
  position: 43,
  id: 'rql_1207',
  kind: 'request',
  brand_id: 'br_Qm3Zp8Lk2Vd0aW7nTc1x',
  created_at: '2026-11-25T07:31:12.000000Z',
  action: 'request.refused',
  actor: { key_id: 'key_5wYt2LcQ8aHk3NzR7pVd', key_prefix: 'bk_live_7Qx2' },
  subject_id: 'key_5wYt2LcQ8aHk3NzR7pVd',
  summary: 'GET /api/v1/payouts answered 403 network_not_allowed',
  client_address: '203.0.113.200',
  user_agent: '',
  request: {
    method: 'GET',
    path: '/api/v1/payouts',
    status: 403,
    error_code: 'network_not_allowed',
    request_id: 'req_2Zt8LcQ8aHk3NzR7pVdx',
    surface: 'rest',
  },
  source: 'records',
  test: false,
};

const AuditEntry = z
  .object({
    position: z.number().int().min(1).meta({
      description:
        "The entry's place in the brand's audit log: 1, 2, 3, ... in the order the entries were stored, the same in every stream and page.",
    }),
    id: z.string().meta({
      description:
        'Stable and unique: `act_...` for activity, `rql_<n>` for a request. Deduplicate on it: a stream delivers at least once.',
    }),
    kind: z.enum(['activity', 'request']),
    brand_id: z.string(),
    created_at: z.string().meta({ description: 'When it happened (RFC 3339 UTC, µs).' }),
    action: z.string().meta({
      description:
        'What happened: `key.created`, `member.signed_in`, `member.sign_in_refused`, `receiver.added`, `deliveries.recovered`, `plan.cancelled`, `audit_stream.added`, ... (docs/console.md "Activity"), or for a request `request.refused` (4xx) or `request.failed` (5xx).',
      examples: ['key.created'],
    }),
    actor: z.record(z.string(), z.string()).meta({
      description:
        'Activity: `member_id` and `email` (`operator` for an operator, `service` or `webhooks service` for the service itself). A request: `key_id` and `key_prefix` (empty when no key of the brand was presented).',
    }),
    subject_id: z.string().meta({
      description: 'What it is about (`key_...`, `mem_...`, `rcv_...`, `aus_...`, `pln_...`).',
    }),
    summary: z.string().meta({ description: 'In words; never a secret.' }),
    client_address: z.string().meta({
      description:
        "The IP address of the request that caused it, as the console or the API saw it (behind a trusted proxy, the client's); empty for what the service did by itself.",
    }),
    user_agent: z.string(),
    request: z
      .object({
        method: z.string(),
        path: z
          .string()
          .meta({ description: 'Without its query; key-shaped segments as `<key>`.' }),
        status: z.number().int(),
        error_code: z.string(),
        request_id: z.string(),
        surface: z.enum(['rest', 'assistant']),
      })
      .optional()
      .meta({ description: 'A request entry only.' }),
    source: z.enum(['records', 'webhooks', 'plans']).meta({
      description: 'The service that recorded it.',
    }),
    test: z.boolean().meta({ description: "Always false here (a stream's Test entry is true)." }),
  })
  .meta({
    id: 'AuditEntry',
    description:
      'One entry of the brand\'s audit trail, exactly as the brand\'s audit streams receive it (docs/console.md "Audit streams").',
  });

const AuditLogPage = z
  .object({
    resource: z.literal('audit_log'),
    count: z.number().int(),
    data: z.array(AuditEntry),
    next_cursor: z.string().optional().meta({
      description: 'Newest first, on a full page: send it as `cursor` for the next (older) page.',
    }),
    next_after: z.number().int().optional().meta({
      description:
        "With `after`: the position to send next (the page's last when the page is full; otherwise the head, everything up to it was read). Store it once the page is processed.",
    }),
    head: z
      .number()
      .int()
      .min(0)
      .meta({
        description:
          "The position of the brand's newest entry when the page was read (0 while there is none); an `after` beyond it is refused (400 `position_beyond_head`).",
        examples: [43],
      }),
  })
  .meta({ id: 'AuditLogPage' });

/** The OpenAPI operation of the audit log. */
export function describeV1AuditLog(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/api/v1/audit-log',
    operationId: 'list_audit_log',
    tags: ['Audit log'],
    summary: "The brand's audit trail: newest first, or followed from a stored position",
    description:
      "Every activity entry of the Developers area (members, sign-ins including refused ones, keys, receivers, deliveries recovered or resent, plans, single sign-on, audit streams) and every API request that was refused or failed, for a SIEM that pulls instead of being pushed to (the brand's audit streams carry the same entries). " +
      'Needs a key with the `audit:read` permission, which a brand owner grants when creating it; every key still reads records. ' +
      "Each entry has a position in the brand's log, handed out in the order the entries were stored (within about a second of the change): without `after`, pages run newest first (`next_cursor` on a full page); with `after`, oldest first after that position, so an integration that stores `next_after` reads every entry once, in order. " +
      "Activity is kept for as long as the brand exists; requests 7 days. Counts against the brand's rate limit like a page.",
    security: [{ bearerAuth: [] }],
    request: { query: AuditLogQueryDoc },
    responses: {
      200: {
        description: 'A page of the audit log.',
        headers: COMMON_HEADERS,
        content: {
          'application/json': {
            schema: AuditLogPage,
            examples: {
              newestFirst: {
                summary: 'The first page, newest first',
                value: {
                  resource: 'audit_log',
                  count: 2,
                  data: [REQUEST_EXAMPLE, ACTIVITY_EXAMPLE],
                  head: 43,
                },
              },
              follow: {
                summary: 'Following: after=42',
                value: {
                  resource: 'audit_log',
                  count: 1,
                  data: [REQUEST_EXAMPLE],
                  next_after: 43,
                  head: 43,
                },
              },
            },
          },
        },
      },
      400: errorResponse(
        '`invalid_parameter` (limit, after, kind, an unknown parameter, or `cursor` with `after`), `invalid_cursor`, or `position_beyond_head` (`after` beyond the head: no position this log gave; the message names the head).',
      ),
      401: errorResponse('`missing_key` or `invalid_key`.', {
        'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
      }),
      403: errorResponse(
        '`insufficient_permission`: the key lacks `audit:read`, or the brand is not on Plus or above; `network_not_allowed`: the key works only from its allowed networks.',
      ),
      429: errorResponse('`rate_limited`: the brand spent its budget.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
      500: errorResponse('`internal_error`; never carries internals.'),
      503: errorResponse('`service_unavailable`: the audit log is briefly unreachable; retry.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
    },
  });
}

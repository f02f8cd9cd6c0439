import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { EVENT_TYPES } from '@brand/shared/enums';
import { DEFAULT_LIMIT, MAX_LIMIT } from '@brand/shared/resources';
import { ErrorBody } from '../../openapi/errorSchema';
import { COMMON_HEADERS, errorResponse, ref } from '../../openapi/responses';

/** The query as the document shows it (input.ts's EventsQuery decides). */
const EventsQueryDoc = z.object({
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .meta({ description: `Events per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` }),
  cursor: z.string().optional().meta({
    description:
      'Newest first: the `next_cursor` of the previous page; the page after it (older events). Not with `after`.',
  }),
  after: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({
      description:
        'Follow mode: the events after this feed position, **oldest first**, and `next_after` (the position to store and send next). `0` starts at the oldest event kept. Not with `cursor`.',
      examples: [0],
    }),
  type: z
    .string()
    .optional()
    .meta({
      description: `Only events of these types: one of ${EVENT_TYPES.names.join(', ')}, comma-separated or repeated.`,
      examples: ['payout.paid'],
    }),
  record_id: z
    .string()
    .optional()
    .meta({
      description: "Only events about this record (the id in the event's `data.object`).",
      examples: ['po_3kTMd9Q0bXh7RzL2aP1c'],
    }),
  since: z.string().optional().meta({
    description:
      'Only events created after this instant (exclusive; RFC 3339 with a time zone), as `since` of the lists.',
  }),
  until: z.string().optional().meta({
    description: 'Only events created before this instant (exclusive; RFC 3339 with a time zone).',
  }),
});

const ConditionalHeaders = z.object({
  'If-None-Match': z
    .string()
    .optional()
    .meta({
      description:
        'The `ETag` of the page you hold. While the brand has no new event the answer is 304 with no body, decided without reading the feed.',
      examples: ['"d2Fz0aQ9sLw2VbN7cPz1mKf4YhT"'],
    }),
});

const EVENT_EXAMPLE = {
  id: 'evt_7Hq2LmZ0aP3kTd9QbXr1',
  type: 'payout.paid',
  created_at: '2026-11-03T01:02:03.000001Z',
  test: false,
  brand_id: 'br_Qm3Zp8Lk2Vd0aW7nTc1x',
  data: {
    object: {
      resource: 'payouts',
      id: 'po_3kTMd9Q0bXh7RzL2aP1c',
      status: 'paid',
      amount: 250000,
      currency: 'PHP',
    },
  },
};

const Event = z
  .object({
    id: z.string().meta({ description: 'The event id (`evt_...`), the same as in deliveries.' }),
    type: z.enum(EVENT_TYPES.names),
    created_at: z.string().meta({ description: 'When the change was committed (RFC 3339, µs).' }),
    test: z.boolean().meta({ description: 'Always false: Test deliveries are not in the feed.' }),
    brand_id: z.string(),
    data: z.object({
      object: z
        .record(z.string(), z.unknown())
        .meta({ description: 'The record the event is about: `resource`, `id`, its state.' }),
    }),
  })
  .meta({
    id: 'Event',
    description: 'A business event, exactly the JSON body a receiver gets as its delivery.',
  });

const EventsPage = z
  .object({
    resource: z.literal('events'),
    count: z.number().int(),
    data: z.array(Event),
    next_cursor: z.string().optional().meta({
      description: 'Newest first, on a full page: send it as `cursor` for the next (older) page.',
    }),
    next_after: z.number().int().optional().meta({
      description:
        "With `after`: the feed position of the last event of a full page; of a page that is not full, `head` (the page holds every event the query matches up to it), except with `until`, where it is the last event's position (or `after` itself when empty). Store it once the page is processed, and read on with `after=<next_after>` and the same filters.",
    }),
    head: z
      .number()
      .int()
      .min(0)
      .meta({
        description:
          "The feed's head: the position of the brand's newest event when the page was read (0 while it has none), whatever the filters. A follower at `next_after = head` has read everything; an `after` beyond it is refused (400 `position_beyond_head`).",
        examples: [42],
      }),
  })
  .meta({ id: 'EventsPage' });

const PAGE_HEADERS = { ...COMMON_HEADERS, ETag: ref('headers', 'ETag') };

const EXPIRED_EXAMPLE = {
  error: {
    code: 'cursor_expired',
    message:
      'This cursor or position is older than the kept event history (docs/api.md "Events"): events after it may be gone. Start again from the first page, or follow from after=0 (the oldest event kept).',
    request_id: 'req_5wYt2LcQ8aHk3NzR7pVd',
  },
};

/** The OpenAPI operation of the events feed. */
export function describeV1EventsList(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/api/v1/events',
    operationId: 'list_events',
    tags: ['Events'],
    summary: "The brand's business events: newest first, or followed from a stored position",
    description:
      "The brand's business events (`submission.approved`, `submission.rejected`, `payout.paid`, `campaign.settled`), each exactly as a receiver gets it, for as long as the delivery history is kept (30 days by default; the operator's `DELIVERY_HISTORY_RETENTION_MS`). " +
      'Every event has a feed position, handed out in the order the events were committed: without `after`, pages run newest first by position (`next_cursor` on a full page); with `after`, oldest first after that position, so an integration that stores `next_after` sees every event once, in position order, across restarts and even when an event with an older `created_at` is committed late. ' +
      "Every page states the feed's `head` (the newest position); an `after` beyond it is 400 `position_beyond_head`, never an empty page to wait on. " +
      "Counts against the brand's rate limit like a page; an unchanged poll with `If-None-Match` is 304. Unlike the lists, this is a feed: the lists keep the contract's walk.",
    security: [{ bearerAuth: [] }],
    request: { query: EventsQueryDoc, headers: ConditionalHeaders },
    responses: {
      200: {
        description: 'A page of events.',
        headers: PAGE_HEADERS as ResponseConfig['headers'],
        content: {
          'application/json': {
            schema: EventsPage,
            examples: {
              newestFirst: {
                summary: 'The first page, newest first',
                value: { resource: 'events', count: 1, data: [EVENT_EXAMPLE], head: 42 },
              },
              follow: {
                summary: 'Following: after=41',
                value: {
                  resource: 'events',
                  count: 1,
                  data: [EVENT_EXAMPLE],
                  next_after: 42,
                  head: 42,
                },
              },
            },
          },
        },
      },
      304: {
        description:
          '`If-None-Match` lists the current ETag: no new event. No body; counts against the rate limit like any request.',
        headers: PAGE_HEADERS,
      },
      400: errorResponse(
        "`invalid_parameter` (limit, after, type, record_id, since, until, an unknown parameter, or `cursor` with `after`), `invalid_cursor`, or `position_beyond_head`: `after` is beyond the feed's head, so it is no position this brand's feed gave (a checkpoint of another environment or brand?); the message names the head. Follow from the head for new events only, or from `after=0` for every event kept.",
      ),
      401: errorResponse('`missing_key` or `invalid_key`.', {
        'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
      }),
      403: errorResponse(
        '`insufficient_permission`: the brand is not on Plus or above; `network_not_allowed`: the key works only from its allowed networks.',
      ),
      410: {
        description:
          '`cursor_expired`: retention dropped an event after this `after` position (an `after` at or above the greatest position dropped reads on), or retention dropped events since the walk of this cursor began and the cursor is at or below the greatest position dropped, so reading on could leave a silent gap (a walk started after the drop reads on to the oldest event kept). Start again (the first page, or `after=0`), and reconcile what the gap may hold from the lists.',
        headers: COMMON_HEADERS,
        content: { 'application/json': { schema: ErrorBody, example: EXPIRED_EXAMPLE } },
      },
      429: errorResponse('`rate_limited`: the brand spent its budget.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
      500: errorResponse('`internal_error`; never carries internals.'),
      503: errorResponse('`service_unavailable`: the events feed is briefly unreachable; retry.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
    },
  });
}

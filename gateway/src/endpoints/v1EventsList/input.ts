import { z } from 'zod';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { AppError, describeIssues, fieldIssues } from '@brand/shared/errors';
import { LIST_PARAM_MESSAGES, normalizeSince, parseLimitString } from '@brand/shared/resources';
import { parseQueryString } from '../../http/queryString';

/** The route, and the request metric's label of every answer of this endpoint. */
export const EVENTS_ROUTE = '/api/v1/events';

/** `/api/v1/events`, as express would match it: any case, an optional trailing slash. */
const EVENTS_PATH = /^\/api\/v1\/events\/?$/i;

/** Whether a request target is the events feed (its query aside). */
export function isEventsPath(url: string | undefined): boolean {
  const target = url ?? '';
  const end = target.search(/[?#]/);
  return EVENTS_PATH.test(end === -1 ? target : target.slice(0, end));
}

/**
 * A feed cursor as webhooks issues it, checked before any call: "<base36>.<16 base64url>", or
 * with the walk's recorded expired_through, "<base36>.<base36>.<16 base64url>" (at most 40
 * characters; services/webhooks/src/feed/feedCursor.ts). Both shapes are taken; a gateway of a
 * release before the longer one refuses it while a rollout mixes releases (docs/deploying.md).
 */
const FEED_CURSOR = /^[0-9a-z]{1,11}\.(?:[0-9a-z]{1,11}\.)?[A-Za-z0-9_-]{16}$/;
/** A feed position: a whole number below 2^53, without sign or leading zeros. */
const POSITION = /^(0|[1-9][0-9]{0,14})$/;
/** A record id of any resource, as records mints them. */
const RECORD_ID = /^[A-Za-z0-9_]{1,64}$/;

const TIME_MESSAGE = 'must be an RFC 3339 timestamp with a time zone, e.g. 2026-11-02T08:15:42Z.';

const time = z
  .string()
  .refine((v) => normalizeSince(v) !== undefined, { message: TIME_MESSAGE })
  .meta({ examples: ['2026-11-02T08:15:42Z'] });

/** `type` given once or more, each a type or a comma-separated list of them. */
const types = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')))
  .pipe(
    z
      .array(
        z.enum(EVENT_TYPES.names, {
          message: `must be one of ${EVENT_TYPES.names.join(', ')}.`,
        }),
      )
      .max(EVENT_TYPES.names.length * 2),
  );

/** GET /api/v1/events query parameters. Unknown parameters are refused, to catch typos. */
const EventsQuery = z.strictObject({
  limit: z
    .string()
    .refine((v) => parseLimitString(v) !== undefined, { message: LIST_PARAM_MESSAGES.limit })
    .optional(),
  cursor: z.string().regex(FEED_CURSOR, LIST_PARAM_MESSAGES.feedCursor).optional(),
  after: z
    .string()
    .regex(POSITION, 'must be a feed position: a whole number, 0 or more.')
    .optional(),
  type: types.optional(),
  record_id: z
    .string()
    .regex(RECORD_ID, 'must be a record id (1 to 64 of A-Z, a-z, 0-9, _).')
    .optional(),
  since: time.optional(),
  until: time.optional(),
});

/** The feed parameters of a valid request, normalized (the ETag hashes this form). */
export interface EventsParams {
  limit: number | undefined;
  cursor: string | undefined;
  /** Present: oldest first after this position (the follow mode). */
  after: number | undefined;
  types: EventTypeName[];
  recordId: string | undefined;
  since: string | undefined;
  until: string | undefined;
}

/**
 * The parameters of a feed request; 400 invalid_parameter with one detail per offending
 * parameter, invalid_cursor when only the cursor is wrong. `cursor` and `after` are two
 * directions and cannot be combined.
 */
export function readEventsQuery(rawQuery: string): EventsParams {
  const result = EventsQuery.safeParse(parseQueryString(rawQuery));
  if (!result.success) {
    const details = fieldIssues(result.error, {
      unknownKey:
        'unknown parameter; the feed takes limit, cursor, after, type, record_id, since and until.',
    });
    const onlyCursor = details.every((d) => d.field === 'cursor');
    throw new AppError(
      onlyCursor ? 'invalid_cursor' : 'invalid_parameter',
      describeIssues(details, ' '),
      {
        details,
      },
    );
  }
  const q = result.data;
  if (q.cursor !== undefined && q.after !== undefined) {
    const message =
      'cursor and after cannot be combined: cursor pages newest first, after reads on oldest first.';
    throw new AppError('invalid_parameter', message, {
      details: [{ field: 'after', message }],
    });
  }
  return {
    limit: q.limit === undefined ? undefined : parseLimitString(q.limit),
    cursor: q.cursor,
    after: q.after === undefined ? undefined : Number(q.after),
    types: [...new Set(q.type ?? [])].sort(),
    recordId: q.record_id,
    since: q.since === undefined ? undefined : normalizeSince(q.since),
    until: q.until === undefined ? undefined : normalizeSince(q.until),
  };
}

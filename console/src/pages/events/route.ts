import type { Router } from 'express';
import { EventType } from '@brand/proto/events/v1';
import { ListEventOutcomesRequest } from '@brand/proto/webhooks/v1';
import { roleAllows } from '@brand/shared/console';
import { EVENT_TYPES } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../consoleDeps';
import { ConsoleHttpError } from '../../http/consoleHttpError';
import { formRefusal } from '../../http/formRefusal';
import { queryFields } from '../../http/queryFields';
import { memberOf, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { deliveryStatusName } from '../receivers/deliveryStatus';
import { EventsPage, type EventsFilter } from './view';

const PAGE = 25;
const FIELDS = ['type', 'since', 'until', 'find', 'cursor'] as const;
const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;

/** The page's filter from its query string; an unknown type is refused in words. */
function filterOf(query: Record<string, unknown>): EventsFilter {
  const q = queryFields(query, FIELDS);
  if (q.type !== '' && !EVENT_TYPES.isName(q.type))
    throw new ConsoleHttpError(
      400,
      'validation_failed',
      `type: must be one of ${EVENT_TYPES.names.join(', ')}.`,
    );
  return q;
}

/** datetime-local values are UTC here (the page says so); the service wants RFC 3339. */
const utc = (v: string) => (v === '' ? '' : /[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);

function request(brandId: string, f: EventsFilter): ListEventOutcomesRequest {
  const find = f.find;
  return ListEventOutcomesRequest.fromPartial({
    brand_id: brandId,
    limit: PAGE,
    cursor: f.cursor,
    event_type:
      f.type === '' ? EventType.EVENT_TYPE_UNSPECIFIED : EVENT_TYPES.toProto(f.type as never),
    since: utc(f.since),
    until: utc(f.until),
    event_id: EVENT_ID.test(find) ? find : '',
    record_id: find !== '' && !EVENT_ID.test(find) ? find : '',
  });
}

/**
 * The Events page: every business event of the brand, newest first (the events feed's order),
 * filtered by type, time, event id or record id, each with what became of it at every
 * receiver (state, attempts, the last answer) and links to each delivery's page; Resend to one
 * receiver there, or to every receiver that failed here. The webhooks service answers as the
 * member (deliveries.read; resending needs deliveries.resend).
 */
export function registerEvents(router: Router, deps: ConsoleDeps): void {
  const webhooks = deps.clients.webhooks;
  const as = (s: MemberSession) => ({ assertion: s.assertion });

  const render = async (
    s: MemberSession,
    res: Parameters<typeof sendPage>[0],
    filter: EventsFilter,
    extra: { notice?: string; error?: string } = {},
    status = 200,
  ) => {
    const page = await webhooks('listEventOutcomes', request(s.brand.id, filter), as(s));
    sendPage(
      res,
      EventsPage({
        viewer: viewerOf(s),
        events: page.events,
        nextCursor: page.next_cursor,
        retentionDays: page.history_retention_days,
        filter,
        canResend: roleAllows(s.role, 'deliveries.resend'),
        ...extra,
      }),
      status,
    );
  };

  router.get('/events', async (req, res) => {
    const s = memberOf(res);
    const filter = filterOf(req.query);
    const resent = typeof req.query.resent === 'string' ? Number(req.query.resent) : NaN;
    const notice = Number.isInteger(resent)
      ? `${resent} failed ${resent === 1 ? 'delivery' : 'deliveries'} queued again, as new attempts of the same event.`
      : undefined;
    try {
      await render(s, res, filter, { notice });
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      throw new ConsoleHttpError(refused.httpStatus, 'validation_failed', refused.message);
    }
  });

  router.post('/events/:eventId/resend-failed', async (req, res) => {
    const s = memberOf(res);
    const eventId = String(req.params.eventId);
    if (!EVENT_ID.test(eventId)) throw new ConsoleHttpError(404, 'not_found', 'No such event.');
    const page = await webhooks(
      'listEventOutcomes',
      request(s.brand.id, { type: '', since: '', until: '', find: eventId, cursor: '' }),
      as(s),
    );
    const event = page.events[0];
    if (!event) throw new ConsoleHttpError(404, 'not_found', 'No such event.');
    let resent = 0;
    for (const d of event.deliveries) {
      if (deliveryStatusName(d.status) !== 'failed') continue;
      try {
        await webhooks('resendDelivery', { delivery_id: d.id }, as(s));
        resent += 1;
      } catch (err) {
        const refused = formRefusal(err);
        if (!refused) throw err;
        const filter = { type: '', since: '', until: '', find: eventId, cursor: '' };
        await render(s, res, filter, { error: refused.message }, refused.httpStatus);
        return;
      }
    }
    res.redirect(303, `/brands/${s.brand.id}/events?find=${eventId}&resent=${resent}`);
  });
}

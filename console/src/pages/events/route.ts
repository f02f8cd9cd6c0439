import type { Router } from 'express';
import { EventType } from '@brand/proto/events/v1';
import { ListEventOutcomesRequest, type Delivery } from '@brand/proto/webhooks/v1';
import { roleAllows } from '@brand/shared/console';
import { EVENT_TYPES } from '@brand/shared/enums';
import { ATTEMPTS_PER_ROUND } from '@brand/shared/webhooks';
import type { ConsoleDeps } from '../../consoleDeps';
import { ConsoleHttpError } from '../../http/consoleHttpError';
import { formRefusal } from '../../http/formRefusal';
import { filterQuery, type FilterRefusal } from '../../http/queryFields';
import { memberOf, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { parseUtcTimeText } from '../../views/utcTimeInput';
import { deliveryStatusName, isWaitingToRetry } from '../receivers/deliveryStatus';
import { EventsPage, type EventsFilter } from './view';

const PAGE = 25;
const FIELDS = ['type', 'since', 'until', 'find', 'cursor'] as const;
const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;

/** Record ids as the pages print them (po_..., sub_..., cmp_...), as the delivery log reads them. */
const RECORD_ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/;

/** The page's filter checked: an unknown type, time or id is refused in words (filterQuery). */
function checkFilter(q: EventsFilter): void {
  const refuse = (message: string) => {
    throw new ConsoleHttpError(400, 'validation_failed', message);
  };
  if (q.type !== '' && !EVENT_TYPES.isName(q.type))
    refuse(`type: must be one of ${EVENT_TYPES.names.join(', ')}.`);
  for (const [field, words] of [
    ['since', 'From'],
    ['until', 'Before'],
  ] as const) {
    if (q[field] !== '' && !parseUtcTimeText(q[field]))
      refuse(`${field}: enter "${words}" as a UTC time, for example 2026-11-20 14:00, or a day.`);
  }
  if (q.find !== '' && !EVENT_ID.test(q.find) && !RECORD_ID.test(q.find))
    refuse('find: enter an event id (evt_...) or a record id (po_..., sub_..., cmp_...).');
}

/** A time as typed, read as UTC (the page says so); the service wants RFC 3339. */
const utc = (v: string) => (v === '' ? '' : (parseUtcTimeText(v)?.toISOString() ?? ''));

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

/** The filter that finds one event, for its own actions. */
const oneEvent = (eventId: string): EventsFilter => ({
  type: '',
  since: '',
  until: '',
  find: eventId,
  cursor: '',
});

/**
 * The Events page: every business event of the brand, newest first (the events feed's order),
 * filtered by type, time, event id or record id, each with what became of it at every
 * receiver (state, attempts, the last answer) and links to each delivery's page; Retry now or
 * Resend to one receiver, or retry every waiting delivery or resend every failed one of an
 * event. The webhooks service answers as the member (deliveries.read; deliveries.retry and
 * deliveries.resend to act).
 */
export function registerEvents(router: Router, deps: ConsoleDeps): void {
  const webhooks = deps.clients.webhooks;
  const as = (s: MemberSession) => ({ assertion: s.assertion });
  const rightsOf = (s: MemberSession) => ({
    canResend: roleAllows(s.role, 'deliveries.resend'),
    canRetry: roleAllows(s.role, 'deliveries.retry'),
  });

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
        rights: rightsOf(s),
        ...extra,
      }),
      status,
    );
  };

  /** The page with a refused filter: 400, the form as typed and why, no events (none asked). */
  const refusedPage = (
    s: MemberSession,
    res: Parameters<typeof sendPage>[0],
    filter: EventsFilter,
    refusal: FilterRefusal,
  ) => {
    res.setHeader('X-Console-Error', refusal.code);
    sendPage(
      res,
      EventsPage({
        viewer: viewerOf(s),
        events: [],
        nextCursor: '',
        filter: { ...filter, cursor: '' },
        rights: rightsOf(s),
        refused: refusal.message,
      }),
      400,
    );
  };

  router.get('/events', async (req, res) => {
    const s = memberOf(res);
    const { fields: filter, refusal } = filterQuery(req.query, FIELDS, checkFilter);
    if (refusal) return refusedPage(s, res, filter, refusal);
    const count = (v: unknown) => (typeof v === 'string' && /^\d{1,4}$/.test(v) ? Number(v) : NaN);
    const resent = count(req.query.resent);
    const retried = count(req.query.retried);
    const notice = Number.isInteger(resent)
      ? `${resent} failed ${resent === 1 ? 'delivery' : 'deliveries'} queued again, each as a new round of attempts of the same event.`
      : Number.isInteger(retried)
        ? `${retried} waiting ${retried === 1 ? 'delivery gets its' : 'deliveries get their'} next attempt now, each one of its ${ATTEMPTS_PER_ROUND}: open the line for their outcome.`
        : undefined;
    try {
      await render(s, res, filter, { notice });
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      // the service's refusal of the filter (a cursor of another listing): on the page too
      if (refused.httpStatus === 400) return refusedPage(s, res, filter, refused);
      throw new ConsoleHttpError(refused.httpStatus, 'validation_failed', refused.message);
    }
  });

  /**
   * One call per delivery of an event that `wanted` picks (resend the failed, retry the
   * waiting), then back to the event with how many; a refusal shows the event with its words.
   */
  const eachDelivery = (
    path: string,
    wanted: (d: Delivery) => boolean,
    rpc: 'resendDelivery' | 'retryDelivery',
    done: string,
  ) =>
    router.post(`/events/:eventId/${path}`, async (req, res) => {
      const s = memberOf(res);
      const eventId = String(req.params.eventId);
      if (!EVENT_ID.test(eventId)) throw new ConsoleHttpError(404, 'not_found', 'No such event.');
      const page = await webhooks(
        'listEventOutcomes',
        request(s.brand.id, oneEvent(eventId)),
        as(s),
      );
      const event = page.events[0];
      if (!event) throw new ConsoleHttpError(404, 'not_found', 'No such event.');
      let n = 0;
      for (const d of event.deliveries.filter(wanted)) {
        try {
          await webhooks(rpc, { delivery_id: d.id }, as(s));
          n += 1;
        } catch (err) {
          const refused = formRefusal(err);
          if (!refused) throw err;
          await render(s, res, oneEvent(eventId), { error: refused.message }, refused.httpStatus);
          return;
        }
      }
      res.redirect(303, `/brands/${s.brand.id}/events?find=${eventId}&${done}=${n}`);
    });

  eachDelivery(
    'resend-failed',
    (d) => deliveryStatusName(d.status) === 'failed',
    'resendDelivery',
    'resent',
  );
  eachDelivery('retry-waiting', isWaitingToRetry, 'retryDelivery', 'retried');
}

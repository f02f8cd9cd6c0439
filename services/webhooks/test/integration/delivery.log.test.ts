// The delivery log that scales: cursor paging, filters by state, event type and time, finds by
// event id and record id, the same for a whole brand, bad input refused as validation_failed, and
// bounded pages over a history far larger than one page's scan. Real HTTPS receivers; the large
// history is written straight into the test database.
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import { newId } from '@brand/shared/ids';
import {
  DeliveryStatus,
  ListDeliveriesRequest,
  type Delivery,
  type ListDeliveriesResponse,
} from '@brand/proto/webhooks/v1';
import type { EventType } from '@brand/proto/events/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { deliveriesOf, newBrandId, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  // The production retry schedule: a 503 waits at least 60 s, so refused deliveries stay waiting.
  h = await startHarness({ label: 'deliverylog', env: { RETRY_TIME_SCALE: '1' } });
});
afterAll(async () => {
  await h?.close();
});

const list = (q: Partial<ListDeliveriesRequest>): Promise<ListDeliveriesResponse> =>
  h.client.call('listDeliveries', ListDeliveriesRequest.fromPartial(q));

/** Every delivery a filter matches, page by page; the pages' sizes too. */
async function walk(q: Partial<ListDeliveriesRequest>) {
  const seen: Delivery[] = [];
  const sizes: number[] = [];
  let cursor = '';
  for (let page = 0; page < 500; page++) {
    const res = await list({ ...q, cursor });
    seen.push(...res.deliveries);
    sizes.push(res.deliveries.length);
    cursor = res.next_cursor;
    if (!cursor) return { seen, sizes };
  }
  throw new Error('the log never ended');
}

const PAID = 'payout.paid' as const;
const APPROVED = 'submission.approved' as const;

describe('a receiver with delivered and waiting deliveries', () => {
  let brandId: string;
  let receiverId: string;
  let before: string[];
  let after: string[];
  let between: string;
  const payoutId = newId('payout');

  beforeAll(async () => {
    brandId = newBrandId();
    // payouts are taken (2xx), submissions refused (503): those wait for their retry
    const r = await h.addReceiver({
      brandId,
      events: [PAID, APPROVED],
      respondWith: (_n, d) => (d.verdict.ok && d.verdict.event.type === APPROVED ? 503 : undefined),
    });
    receiverId = r.receiver.id;
    const batch = (n: number, offset: number) =>
      Array.from({ length: n }, (_, i) =>
        (offset + i) % 3 === 0
          ? makeBusinessEvent({ brandId, type: APPROVED })
          : makeBusinessEvent({
              brandId,
              type: PAID,
              // three events about one payout, to be found by its id
              object: {
                resource: 'payouts',
                id: offset + i < 3 ? payoutId : newId('payout'),
                status: 'paid',
              },
            }),
      );
    const settled = async (ids: string[]) =>
      waitFor(
        async () => {
          const all = await deliveriesOf(h, receiverId);
          const mine = all.filter((d) => ids.includes(d.event_id) && d.attempt_count >= 1);
          return mine.length === ids.length || undefined;
        },
        { timeoutMs: 30_000 },
      );
    const first = batch(9, 0);
    await h.producer.publish(first);
    before = first.map((e) => e.id);
    await settled(before);
    await new Promise((r) => setTimeout(r, 50));
    between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 50));
    const second = batch(9, 9);
    await h.producer.publish(second);
    after = second.map((e) => e.id);
    await settled(after);
  });

  it('pages through everything with a cursor: each delivery once, newest first', async () => {
    const { seen, sizes } = await walk({ receiver_id: receiverId, limit: 4 });
    expect(sizes).toEqual([4, 4, 4, 4, 2]);
    expect(new Set(seen.map((d) => d.id)).size).toBe(18);
    expect(new Set(seen.map((d) => d.event_id))).toEqual(new Set([...before, ...after]));
    const times = seen.map((d) => Date.parse(d.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // a full last page has nothing after it: the page after it is empty and ends the log
    const exact = await walk({ receiver_id: receiverId, limit: 9 });
    expect(exact.sizes.reduce((a, b) => a + b, 0)).toBe(18);
  });

  it('filters by state: delivered, waiting, failed', async () => {
    const delivered = await walk({
      receiver_id: receiverId,
      status: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
    });
    expect(delivered.seen).toHaveLength(12);
    expect(delivered.seen.every((d) => d.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED)).toBe(
      true,
    );
    const waiting = await walk({
      receiver_id: receiverId,
      status: DeliveryStatus.DELIVERY_STATUS_PENDING,
    });
    expect(waiting.seen).toHaveLength(6);
    expect(waiting.seen.every((d) => EVENT_TYPES.fromProto(d.event_type) === APPROVED)).toBe(true);
    const failed = await list({
      receiver_id: receiverId,
      status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    });
    expect(failed).toEqual({ deliveries: [], next_cursor: '', history_retention_days: 30 });
  });

  it('filters by event type, and pages within the filter', async () => {
    const paid = await walk({
      receiver_id: receiverId,
      event_type: EVENT_TYPES.toProto(PAID),
      limit: 5,
    });
    expect(paid.sizes).toEqual([5, 5, 2]);
    expect(paid.seen.every((d) => EVENT_TYPES.fromProto(d.event_type) === PAID)).toBe(true);
  });

  it('filters by time range: since and until split the two batches', async () => {
    const newer = await walk({ receiver_id: receiverId, since: between });
    expect(new Set(newer.seen.map((d) => d.event_id))).toEqual(new Set(after));
    const older = await walk({ receiver_id: receiverId, until: between });
    expect(new Set(older.seen.map((d) => d.event_id))).toEqual(new Set(before));
    const combined = await walk({
      receiver_id: receiverId,
      until: between,
      status: DeliveryStatus.DELIVERY_STATUS_PENDING,
    });
    expect(combined.seen).toHaveLength(3);
  });

  it('finds by event id and by record id, for the receiver and for the brand', async () => {
    const one = await list({ receiver_id: receiverId, event_id: after[4]! });
    expect(one.deliveries.map((d) => d.event_id)).toEqual([after[4]]);
    expect(one.next_cursor).toBe('');
    for (const owner of [{ receiver_id: receiverId }, { brand_id: brandId }]) {
      const byRecord = await walk({ ...owner, record_id: payoutId });
      // events 1 and 2 of the first batch are about this payout (0 is a submission)
      expect(new Set(byRecord.seen.map((d) => d.event_id))).toEqual(
        new Set([before[1], before[2]]),
      );
    }
    // another brand's record id finds nothing of this brand
    const elsewhere = await list({ brand_id: newBrandId(), record_id: payoutId });
    expect(elsewhere.deliveries).toEqual([]);
  });

  it('refuses bad input as validation_failed (never a 500) and names the field', async () => {
    const refused = async (q: Partial<ListDeliveriesRequest>, field: string) => {
      const err = await list({ receiver_id: receiverId, ...q }).then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string },
      );
      expect(err?.code).toBe('validation_failed');
      expect(err?.message).toContain(field);
    };
    await refused({ cursor: 'not a cursor!' }, 'cursor');
    await refused({ cursor: Buffer.from('["x","y"]').toString('base64url') }, 'cursor');
    await refused({ cursor: Buffer.from('{}').toString('base64url') }, 'cursor');
    // Dates of the cursor's shape that no calendar has: PostgreSQL refused them with an error
    // the service answered as internal (a 500 in the console, found by a hostile review).
    for (const at of [
      '2026-02-30T00:00:00.000000Z',
      '2026-04-31T12:00:00.000000Z',
      '2026-01-01T24:00:00.000000Z',
      '2026-01-01T23:59:60.000000Z',
      '0000-01-01T00:00:00.000000Z',
    ]) {
      await refused(
        { cursor: Buffer.from(JSON.stringify([at, 'dlv_a'])).toString('base64url') },
        'cursor',
      );
    }
    await refused({ status: 42 as DeliveryStatus }, 'status');
    await refused({ event_type: 42 as EventType }, 'event_type');
    await refused({ since: 'yesterday' }, 'since');
    await refused({ since: between, until: between }, 'until');
    await refused({ event_id: 'dlv_1' }, 'event');
    await refused({ record_id: "x'; drop table events;--" }, 'record');
    await refused({ limit: 201 }, 'limit');
  });
});

describe('a history much larger than a page', () => {
  const ROWS = 45_000;
  let brandId: string;
  let receiverId: string;

  beforeAll(async () => {
    brandId = newBrandId();
    const r = await h.addReceiver({ brandId, events: [PAID] });
    receiverId = r.receiver.id;
    // 45,000 delivered deliveries a second apart, the newest 20 s ago; one failed among the oldest
    await h.db.pool.query(
      `insert into webhooks.events (id, brand_id, type, created_at, object_json, record_id)
       select 'evt_big' || g, $1, 'payout.paid', now() - g * interval '1 second',
         json_build_object('id', 'po_big' || g)::text, 'po_big' || g
       from generate_series(1, $2) g`,
      [brandId, ROWS],
    );
    await h.db.pool.query(
      `insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id, status, attempts, created_at, completed_at)
       select 'dlv_big' || g, e.id, e.created_at, e.type, $1, $2,
         case when g = $3 - 10 then 'failed' else 'succeeded' end, 1,
         now() - interval '20 seconds' - g * interval '1 second', now()
       from generate_series(1, $3) g join webhooks.events e on e.id = 'evt_big' || g`,
      [receiverId, brandId, ROWS],
    );
    await h.db.pool.query('analyze webhooks.deliveries; analyze webhooks.events');
  });

  it('walks it in pages of 200 with nothing missed or repeated', async () => {
    const { seen } = await walk({ receiver_id: receiverId, limit: 200 });
    expect(seen).toHaveLength(ROWS);
    expect(new Set(seen.map((d) => d.id)).size).toBe(ROWS);
  });

  it('a rare state is found with bounded pages: short pages carry the cursor on', async () => {
    const { seen, sizes } = await walk({
      receiver_id: receiverId,
      status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    });
    expect(seen.map((d) => d.id)).toEqual([`dlv_big${ROWS - 10}`]);
    // each page scanned at most 20,000 deliveries: three pages for 45,000
    expect(sizes).toEqual([0, 0, 1]);
  });

  it('finds one record among them by index', async () => {
    const found = await list({ brand_id: brandId, record_id: 'po_big31234' });
    expect(found.deliveries.map((d) => d.id)).toEqual(['dlv_big31234']);
    const plan = await h.db.pool.query<{ 'QUERY PLAN': string }>(
      `explain select id from webhooks.events where brand_id = $1 and record_id = $2`,
      [brandId, 'po_big31234'],
    );
    // the day partitions' copies of events_brand_record (<partition>_brand_id_record_id_idx)
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(
      /(Index Scan using|Bitmap Index Scan on) events_p\d{8}_brand_id_record_id_idx/,
    );
  });
});

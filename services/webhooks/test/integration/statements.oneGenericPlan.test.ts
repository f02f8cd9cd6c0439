import type pg from 'pg';
import { preparedStatements, type TestDatabase } from '@brand/testkit';
import { claimDueDeliveries, claimFedDeliveries } from '../../src/claim/claimRepo';
import { insertDeliveries, insertEvents } from '../../src/ingest/eventRepo';
import { recordSucceededAttempts } from '../../src/outcome/attemptRepo';
import { historyDatabase, insertReceivers, successOf, webhooksPool } from './statementFixtures';

// Issue 64 (S10): over 10,000 receivers, a delivery or two at a time, the pipeline's prepared
// statements are planned once and then run on their generic plan. They took their batches as
// arrays whose length a custom plan reads; with one or two rows among many receivers each custom
// plan looked cheaper than the generic one, and PostgreSQL (plan_cache_mode auto) planned the
// successes' statement and the claim by key again at every execution: 1.9 and 1.6 ms of planning
// for 0.8 and 0.2 ms of work (the consumer's insert of events too). The arrays are now hidden
// from the planner (unseenArray). pg_prepared_statements counts the plans of the connection's
// statements; with the arrays given bare, the claim by key and the events' insert here were
// custom-planned at every execution (the successes' statement was in S10 and in
// scripts/bench/webhookStatements.mjs with RECEIVERS=10000 BATCH=2). The scan's claims name
// receivers too (those with attempts in flight and their room, the slow ones); given bare, the
// slow lane's claim was planned again at every scan here.

const BRANDS = 2_000;
const PER_BRAND = 5;
const EVENTS = 40;
/** Deliveries delivered before the test's, in the week's partition. */
const HISTORY = 20_000;
/** Of them, deliveries waiting for their receivers. */
const BACKLOG = 2_000;

let db: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await historyDatabase();
  await insertReceivers(db, {
    prefix: 'rcv_plans',
    count: BRANDS * PER_BRAND,
    brandPrefix: 'br_plans',
    perBrand: PER_BRAND,
  });
  // a week's history of delivered events, and the statistics a running system has of it
  // (autovacuum's, or the history keeper's)
  await db.pool.query(
    `insert into webhooks.events (id, brand_id, type, created_at, object_json)
     select 'evt_history' || g, 'br_plans' || (g % $2::int), 'submission.approved',
       now() - g * interval '10 milliseconds', '{"id":"sub_history"}'
     from generate_series(1, $1::int) as g`,
    [HISTORY, BRANDS],
  );
  await db.pool.query(
    `insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id,
       status, attempts, completed_at)
     select 'dlv_' || e.id, e.id, e.created_at, e.type,
       'rcv_plans' || (substring(e.id from 12)::int % $1::int), e.brand_id, 'succeeded', 1, e.created_at
     from webhooks.events e`,
    [BRANDS * PER_BRAND],
  );
  // and a backlog: deliveries waiting for their receivers, as at a day's peak
  await db.pool.query(
    `insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id)
     select 'dlv_wait_' || e.id, e.id, e.created_at, e.type,
       'rcv_plans' || ((substring(e.id from 12)::int + 1) % $1::int), e.brand_id
     from webhooks.events e where substring(e.id from 12)::int <= $2::int`,
    [BRANDS * PER_BRAND, BACKLOG],
  );
  await db.pool.query('analyze webhooks.receivers, webhooks.events, webhooks.deliveries');
  // one connection: each connection prepares a statement once and plans it per its own counts
  pool = webhooksPool(db, 1);
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await db?.close();
});

it('stores, claims and records deliveries of many receivers one or two at a time on one generic plan each', async () => {
  const client = await pool.connect();
  try {
    for (let i = 0; i < EVENTS; i++) {
      // one event of a brand of 5 receivers, as most fetches over 2,000 brands hold
      const event = {
        id: `evt_plans${i}`,
        brandId: `br_plans${(i * 37) % BRANDS}`,
        type: 'submission.approved' as const,
        createdAt: new Date().toISOString(),
        objectJson: `{"id":"sub_plans${i}"}`,
        test: false,
        producer: 'test',
        traceparent: null,
        tracestate: null,
      };
      await client.query('begin');
      const stored = await insertEvents(client, [event]);
      const deliveries = (stored.receivers.get(event.id) ?? []).map((receiverId) => ({
        id: `dlv_plans${i}_${receiverId}`,
        eventId: event.id,
        eventAt: event.createdAt,
        eventType: event.type,
        receiverId,
        brandId: event.brandId,
      }));
      await insertDeliveries(client, deliveries);
      await client.query('commit');
      expect(deliveries).toHaveLength(PER_BRAND);
      // claimed and recorded two, two and one at a time, as a busy worker's feed hands them
      for (const part of [deliveries.slice(0, 2), deliveries.slice(2, 4), deliveries.slice(4)]) {
        const claimed = await claimFedDeliveries(
          client,
          part.map((d) => ({ id: d.id, eventAt: d.eventAt })),
          60_000,
        );
        expect(claimed.map((d) => d.id).sort()).toEqual(part.map((d) => d.id).sort());
        await recordSucceededAttempts(client, claimed.map(successOf));
      }
    }
    const named = [
      'webhooks.claim-fed-deliveries',
      'webhooks.insert-events',
      'webhooks.record-succeeded-attempts',
    ];
    const plans = Object.fromEntries(
      (await preparedStatements(client, 'webhooks.%'))
        .filter((p) => named.includes(p.name))
        .map((p) => [p.name, { generic: p.generic, custom: p.custom }]),
    );
    // PostgreSQL makes five custom plans of a prepared statement before it weighs the generic one
    expect(plans).toEqual({
      'webhooks.claim-fed-deliveries': { generic: 3 * EVENTS - 5, custom: 5 },
      'webhooks.insert-events': { generic: EVENTS - 5, custom: 5 },
      'webhooks.record-succeeded-attempts': { generic: 3 * EVENTS - 5, custom: 5 },
    });
    const { rows: done } = await client.query<{ n: string }>(
      `select count(*) as n from deliveries where status = 'succeeded' and id like 'dlv_plans%'`,
    );
    expect(Number(done[0]!.n)).toBe(EVENTS * PER_BRAND);
  } finally {
    client.release();
  }
});

it('scans for due deliveries among many receivers on one generic plan, whatever receivers it names', async () => {
  const SCANS = 20;
  for (let i = 0; i < SCANS; i++) {
    // as a worker's lanes name them: receivers with attempts in flight and their room, the
    // slow ones apart (the slow lane's claim takes those alone)
    const inFlight = Array.from({ length: 1 + (i % 7) }, (_, k) => `rcv_plans${(i * 13 + k) % 50}`);
    const slow = Array.from({ length: i % 3 }, (_, k) => `rcv_plans${100 + ((i + k) % 9)}`);
    const receiverRoom = new Map(inFlight.map((id, k) => [id, k % 3] as const));
    const scope = { limit: 12, perReceiver: 4, receiverRoom, leaseMs: 60_000 };
    const shared = await claimDueDeliveries(pool, { ...scope, receivers: { except: slow } });
    expect(shared.length).toBeGreaterThan(0);
    await claimDueDeliveries(pool, { ...scope, receivers: { only: [...slow, 'rcv_plans1'] } });
  }
  const client = await pool.connect();
  try {
    expect(
      Object.fromEntries(
        (await preparedStatements(client, 'webhooks.claim-due-deliveries%')).map((p) => [
          p.name,
          { generic: p.generic, custom: p.custom },
        ]),
      ),
    ).toEqual({
      'webhooks.claim-due-deliveries': { generic: SCANS - 5, custom: 5 },
      'webhooks.claim-due-deliveries-of': { generic: SCANS - 5, custom: 5 },
    });
  } finally {
    client.release();
  }
});

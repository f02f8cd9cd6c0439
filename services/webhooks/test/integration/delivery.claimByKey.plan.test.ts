import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { claimFedDeliveries } from '../../src/claim/claimRepo';
import { keepHistoryPartitions } from '../../src/maintenance/historyPartitions';
import {
  expectGenericPlan,
  onePreparingConnection,
  planNodes,
  type PlanNode,
} from './preparedPlans';

// The claim by key (the feed from the consumer to its own worker) costs the rows it names,
// whatever the week partition holds and whatever its statistics say, and is not planned
// again at every call. Before this test it was neither: with statistics taken while the week
// was empty its plan hashed every due delivery of the week to lock one, and with small batches
// PostgreSQL planned it at every call (a custom plan sees the number of keys; about 1 ms of
// planning across the partitions for 0.2 ms of work).

const DAY = 86_400_000;
const RECEIVERS = 10;
const EVENTS = 300; // x 10 receivers: 3,000 due deliveries in this week's partition
const LEASE_MS = 60_000;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  // the week partitions, made and analyzed while empty, as a new week starts
  await keepHistoryPartitions(db.pool, {
    historyMs: 30 * DAY,
    detailMs: 14 * DAY,
    batchSize: 1000,
  });
  await db.pool.query(
    `insert into webhooks.receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by, created_at)
     select 'rcv_plan' || g, 'br_plan', 'https://receiver.example/hook', 'plan ' || g, '{payout.paid}', '\\x00', 'k1', 'test', now() - interval '1 day'
     from generate_series(1, $1::int) as g`,
    [RECEIVERS],
  );
  await db.pool.query(
    `insert into webhooks.events (id, brand_id, type, created_at, object_json)
     select 'evt_plan' || g, 'br_plan', 'payout.paid', now() - g * interval '10 milliseconds', '{"id":"po_plan"}'
     from generate_series(1, $1::int) as g`,
    [EVENTS],
  );
  await db.pool.query(
    `insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id)
     select 'dlv_plan' || e.id || r.id, e.id, e.created_at, e.type, r.id, 'br_plan'
     from webhooks.events e cross join webhooks.receivers r`,
  );
});
afterAll(() => db?.close());

/** Every due delivery's key, oldest event first. */
async function dueKeys(): Promise<Array<{ id: string; eventAt: string }>> {
  const { rows } = await db.pool.query<{ id: string; event_at: string }>(
    `select id, to_char(event_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as event_at
     from webhooks.deliveries where lease_until is null order by event_at, id`,
  );
  return rows.map((r) => ({ id: r.id, eventAt: r.event_at }));
}

describe('the claim by key, a week partition of 3,000 due deliveries', () => {
  it('claims exactly the keys named, settles on one plan, and reads only their rows', async () => {
    // the statistics the history keeper keeps (historyPartitions.ts analyzes a partition
    // whose rows changed by more than 50 + 10 %)
    await db.pool.query('analyze webhooks.deliveries, webhooks.events');
    const keys = await dueKeys();
    expect(keys.length).toBeGreaterThan(2_000);
    const pool = onePreparingConnection(db.url);
    try {
      // small batches, as the feed hands over at paced rates
      for (let i = 0; i < 8; i++) {
        const named = keys.splice(0, 2);
        const claimed = await claimFedDeliveries(pool, named, LEASE_MS);
        expect(claimed.map((d) => d.id).sort()).toEqual(named.map((k) => k.id).sort());
      }
      const client = await pool.connect();
      try {
        await expectGenericPlan(client, 'webhooks.claim-fed-deliveries');
        const named = keys.splice(0, 4);
        const array = (xs: string[]) => client.escapeLiteral(`{${xs.join(',')}}`);
        const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
          `explain (analyze, format json) execute "webhooks.claim-fed-deliveries"(
             ${array(named.map((k) => k.id))}, ${array(named.map((k) => k.eventAt))}, ${LEASE_MS})`,
        );
        const read = planNodes(explained.rows[0]!['QUERY PLAN'][0]!.Plan)
          .filter(
            (n) => n['Node Type'].endsWith('Scan') && n['Relation Name']?.startsWith('deliveries'),
          )
          .reduce(
            (sum, n) =>
              sum +
              ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) *
                (n['Actual Loops'] ?? 0),
            0,
          );
        // each key's row found once to lock it and once to lease it; nothing else of the 3,000
        expect(read).toBeLessThanOrEqual(2 * named.length);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});

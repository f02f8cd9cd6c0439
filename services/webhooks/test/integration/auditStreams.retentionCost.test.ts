import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import {
  DELETE_EXPIRED_REQUEST_ENTRIES,
  DELETE_OLDEST_REQUEST_ENTRIES,
  deleteExpiredRequestEntries,
  REQUEST_ENTRY_RETENTION_MS,
  RETENTION_PLAN_SETTING,
} from '../../src/audit/trailRetention';
import { datadogStream, deliveredThrough, streamDeps } from '../support/auditStreamFixtures';

// The request-entry retention's cost with a brand whose audit stream is stuck (its destination
// away for days): its expired entries are kept, oldest of all. The pass walked the trail's
// request entries by age and stepped past every kept one to reach the deletable ones behind
// (the probe of 2026-12-01: 100,000 kept for 1,000 deleted, 2.3 s under the trail lock that
// resends wait for), again on every pass. It now reads what it deletes, plus a few probes a brand.

/** Expired request entries of the stuck brand, which its stream has not sent. */
const KEPT = 20_000;
/** The stuck brand's activity entries before them, sent (kept for as long as the brand is). */
const ACTIVITY = 2_000;
/** Other brands, each with DELETABLE expired request entries and RECENT ones not expired. */
const BRANDS = 100;
const DELETABLE = 5;
const RECENT = 20;
/** A brand whose stream keeps up, with many recent entries and a few expired. */
const BUSY_RECENT = 5_000;
const BUSY_DELETABLE = 20;

let db: TestDatabase;
const stuck = `br_stuck${randomBytes(4).toString('hex')}`;
const busy = `br_busy${randomBytes(4).toString('hex')}`;

/** A Datadog stream of `brandId`, sent through `through`. */
async function streamOf(brandId: string, through: number): Promise<void> {
  const stream = await datadogStream(streamDeps(db.pool), brandId);
  await deliveredThrough(db.pool, stream.id, through);
}

/** `count` request (or `kind`) entries of `brandId` from seq `from`, received `ageHours` ago on. */
const entries = (
  brandId: string,
  from: number,
  count: number,
  ageHours: number,
  kind = 'request',
) =>
  db.pool.query(
    `insert into audit_entries (brand_id, seq, id, kind, created_at, received_at, entry_json)
     select $1, $2::bigint + g, 'aud_' || $1 || '_' || ($2::bigint + g), $5, t, t, '{}'
     from generate_series(0, $3::int - 1) as g
     cross join lateral (select now() - $4::float8 * interval '1 hour'
                           + g * interval '1 millisecond' as t) a`,
    [brandId, from, count, ageHours, kind],
  );

beforeAll(async () => {
  db = await createTestDatabase();
  await streamOf(stuck, ACTIVITY);
  await entries(stuck, 1, ACTIVITY, 11 * 24, 'activity');
  await entries(stuck, 1 + ACTIVITY, KEPT, 10 * 24);
  await entries(stuck, 1 + ACTIVITY + KEPT, 100, 1);
  for (let i = 0; i < BRANDS; i++) {
    const brandId = `br_other${String(i).padStart(3, '0')}`;
    await entries(brandId, 1, DELETABLE, 8 * 24);
    await entries(brandId, 1 + DELETABLE, RECENT, 1);
  }
  await streamOf(busy, BUSY_DELETABLE + BUSY_RECENT);
  await entries(busy, 1, BUSY_DELETABLE, 8 * 24);
  await entries(busy, 1 + BUSY_DELETABLE, BUSY_RECENT, 24);
  await db.pool.query('analyze audit_entries, receivers, deliveries, events');
}, 120_000);
afterAll(() => db?.close());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/**
 * Entries of audit_entries the plan's scans read, kept or not, over all their loops: the walks,
 * the probes and the brands' skip scan, not the delete's own reads of what they found.
 */
function entriesWalked(node: PlanNode): number {
  const own =
    !['ModifyTable', 'Tid Scan'].includes(node['Node Type']) &&
    node['Relation Name'] === 'audit_entries'
      ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + entriesWalked(child), 0);
}

const before = () => new Date(Date.now() - REQUEST_ENTRY_RETENTION_MS);

it("reads the entries it deletes, not a stuck stream's kept ones, and deletes all it may", async () => {
  const deletable = BRANDS * DELETABLE + BUSY_DELETABLE;
  const client = await db.pool.connect();
  let plan: PlanNode;
  try {
    await client.query('begin');
    await client.query(RETENTION_PLAN_SETTING);
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `explain (analyze, buffers, format json) ${DELETE_EXPIRED_REQUEST_ENTRIES}`,
      [before(), 1000],
    );
    await client.query('rollback');
    plan = rows[0]!['QUERY PLAN'][0]!.Plan;
  } finally {
    client.release();
  }
  const pages = (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
  // walking the trail by age, the stuck brand's 20,000 kept entries came first: 20,520 walked
  // and 21,963 pages; now each entry deleted and a brand's probes (608 walked, 1,809 pages)
  const cost = { walked: entriesWalked(plan), pages };
  const most = { walked: deletable + 2 * (BRANDS + 2), pages: 6 * deletable };
  expect(cost).toEqual({
    walked: cost.walked <= most.walked ? cost.walked : `at most ${most.walked}`,
    pages: cost.pages <= most.pages ? cost.pages : `at most ${most.pages}`,
  });

  // what it deletes is what it did: every expired entry but the stuck brand's
  expect(await deleteExpiredRequestEntries(db.pool, before(), 1000)).toBe(deletable);
  const left = await db.pool.query<{ brand_id: string; n: number }>(
    `select brand_id, count(*)::int as n from audit_entries
     where kind = 'request' and received_at < $1 group by brand_id`,
    [before()],
  );
  expect(left.rows).toEqual([{ brand_id: stuck, n: KEPT }]);
});

it('with every stream keeping up, a pass reads the oldest entries only, however many brands', async () => {
  // The stuck brand's stream catches up: its 20,000 expired entries may all go now, and they are
  // the trail's oldest. A pass of 1,000 takes 1,000 of them from the oldest it looks at, with no
  // probe of the other brands (a pass brand by brand probes every brand with request entries,
  // which is the cost of a pass at every sweep, on every replica, when nothing is stuck).
  await db.pool.query(
    `update receivers set stream_delivered_through = $2
      where brand_id = $1 and kind <> 'webhook'`,
    [stuck, ACTIVITY + KEPT + 100],
  );
  // The pass's statements, seen through a pool whose client notes each one.
  const statements: string[] = [];
  const clients: object[] = [];
  const recording = {
    connect: async () => {
      const client = await db.pool.connect();
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      clients.push(client);
      return Object.assign(client, {
        query: (...args: unknown[]) => {
          if (typeof args[0] === 'string') statements.push(args[0]);
          return query(...args);
        },
      });
    },
  } as unknown as typeof db.pool;
  const deleted = await deleteExpiredRequestEntries(recording, before(), 1000);
  for (const client of clients) Reflect.deleteProperty(client, 'query'); // back to the pool's own
  expect(deleted).toBe(1000);
  expect(statements).toContain(DELETE_OLDEST_REQUEST_ENTRIES);
  expect(statements).not.toContain(DELETE_EXPIRED_REQUEST_ENTRIES);
  const left = await db.pool.query<{ n: number }>(
    `select count(*)::int as n from audit_entries
     where brand_id = $1 and kind = 'request' and received_at < $2`,
    [stuck, before()],
  );
  expect(left.rows[0]!.n).toBe(KEPT - 1000);
});

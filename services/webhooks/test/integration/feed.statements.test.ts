import pg from 'pg';
import { createTestDatabase, preparedStatements, type TestDatabase } from '@brand/testkit';
import { readFeedPage, type FeedQuery } from '../../src/feed/feedRepo';

// The events feed reads a page in one prepared statement per shape of question (direction and
// filters). Each must settle on PostgreSQL's generic plan, so a page is not planned again
// across every week partition on each request, and that plan must walk the events_feed index
// in order (no Sort) and still answer exactly the page asked for.

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const BRAND = 'br_feedplans';
const EVENTS = 5_000;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  // a brand whose page is a small part of its feed (the planner weighs a generic plan with an
  // unknown limit as a tenth of the brand's events)
  await db.pool.query(
    `insert into webhooks.events (id, brand_id, type, created_at, object_json, record_id, feed_seq)
     select 'evt_plan' || lpad(g::text, 6, '0'), $1,
            case when g % 2 = 0 then 'payout.paid' else 'submission.approved' end,
            now() - ($2 - g) * interval '1 minute',
            format('{"resource":"payouts","id":"po_%s"}', g), 'po_' || g, g
     from generate_series(1, $2::int) as g`,
    [BRAND, EVENTS],
  );
  await db.pool.query(
    `insert into webhooks.event_feed_heads (brand_id, last_seq) values ($1, $2)`,
    [BRAND, EVENTS],
  );
  await db.pool.query('analyze webhooks.events');
});
afterAll(() => db?.close());

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

const SHAPES: Array<[string, FeedQuery, number[]]> = [
  [
    'the first page',
    { brandId: BRAND, limit: 5, direction: { newestFirst: true }, types: [] },
    [5000, 4999, 4998, 4997, 4996],
  ],
  [
    'a page before a cursor',
    { brandId: BRAND, limit: 5, direction: { newestFirst: true, before: 100 }, types: [] },
    [99, 98, 97, 96, 95],
  ],
  [
    'a page followed after a position',
    { brandId: BRAND, limit: 5, direction: { newestFirst: false, after: 100 }, types: [] },
    [101, 102, 103, 104, 105],
  ],
  [
    'a page of one type',
    { brandId: BRAND, limit: 5, direction: { newestFirst: true }, types: ['payout.paid'] },
    [5000, 4998, 4996, 4994, 4992],
  ],
];

describe('the feed statements as the service runs them', () => {
  it.each(SHAPES)(
    '%s: the page asked for, from a generic plan walking the feed index',
    async (_name, query, positions) => {
      // one connection: each of the service's pool connections prepares a statement once
      const pool = new pg.Pool({
        connectionString: db.url,
        max: 1,
        options: '-c search_path=webhooks',
      });
      try {
        for (let i = 0; i < 8; i++) {
          const read = await readFeedPage(pool, query);
          expect(read.rows.map((r) => r.position)).toEqual(positions);
          expect(read.version).toBe(EVENTS);
        }
        const client = await pool.connect();
        try {
          const rows = await preparedStatements(client, 'webhooks_feed_%');
          expect(rows).toHaveLength(1);
          const row = rows[0]!;
          // PostgreSQL tries five custom plans before it weighs the generic one
          expect(row.custom).toBeLessThanOrEqual(5);
          expect(row.generic).toBeGreaterThanOrEqual(3);
          const args = [`'${BRAND}'`, '5'];
          if (row.statement.includes('feed_seq <') || row.statement.includes('feed_seq >'))
            args.push('100');
          if (query.types.length > 0) args.push(`'{payout.paid}'`);
          const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
            `explain (format json) execute ${row.name}(${args.join(', ')})`,
          );
          const plan = nodes(explained.rows[0]!['QUERY PLAN'][0]!.Plan);
          expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
          expect(
            plan.map((n) => n['Index Name']).some((name) => name?.endsWith('feed_seq_idx')),
          ).toBe(true);
        } finally {
          client.release();
        }
      } finally {
        await pool.end();
      }
    },
  );
});

// Two hand-overs of one audit entry that race store it once, and neither fails. A relay whose
// call timed out hands its batch over again while the first call's transaction may still run;
// both read "not stored yet" before either committed, and the second then failed on the
// unique id, refusing its whole batch until the next turn (a review, 2026-11-30; it healed,
// at a relay's back-off). The trail now takes its brands' head locks before it looks, so the
// second sees what the first stored. Positions stay 1, 2, 3… with no gap.
import type { AuditEntryIn } from '@brand/proto/webhooks/v1/audit';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { withTransaction } from '@brand/shared/db';
import pg from 'pg';
import { ingestAuditEntries } from '../../src/audit/ingestService';
import { renderEntry } from '../../src/audit/entryJson';
import { insertAuditEntries } from '../../src/audit/ingestRepo';

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4, options: '-c search_path=webhooks' });
  // an idle connection cut by another test's failover (they share the cluster) is no failure here
  pool.on('error', () => undefined);
});
afterAll(async () => {
  await pool?.end();
  await db?.close();
});

const entry = (id: string, brand: string): AuditEntryIn => ({
  id,
  brand_id: brand,
  kind: 'activity',
  source: 'records',
  row_json: JSON.stringify({
    created_at: '2026-11-30T10:00:00.000000Z',
    action: 'key.created',
    actor_member_id: '',
    actor_email: 'ana@acme.example',
    subject_id: 'key_1',
    summary: 'Created a key',
    client_address: '',
    user_agent: '',
  }),
});

const stored = async (brand: string) =>
  (
    await pool.query<{ id: string; seq: string }>(
      `select e.id, e.seq::text as seq from audit_entries e where e.brand_id = $1 order by e.seq`,
      [brand],
    )
  ).rows;

describe('the audit ingest', () => {
  it('stores an entry handed over twice at once, once, and fails neither hand-over', async () => {
    const brand = 'br_ingestRace';
    const first = await pool.connect();
    let second: Promise<Map<string, number>> | undefined;
    try {
      await first.query('begin');
      // the first hand-over has stored act_a and act_b and not committed yet...
      await insertAuditEntries(first, [
        renderEntry(entry('act_raceA', brand)),
        renderEntry(entry('act_raceB', brand)),
      ]);
      // ...when the second, with act_b again and a new act_c, starts
      second = ingestAuditEntries(pool, [entry('act_raceB', brand), entry('act_raceC', brand)]);
      second.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      await first.query('commit');
    } finally {
      first.release();
    }
    await expect(second).resolves.toEqual(new Map([[brand, 1]]));
    expect(await stored(brand)).toEqual([
      { id: 'act_raceA', seq: '1' },
      { id: 'act_raceB', seq: '2' },
      { id: 'act_raceC', seq: '3' },
    ]);
  });

  it('takes two batches of two brands in opposite orders at once without a deadlock', async () => {
    const [x, y] = ['br_ingestX', 'br_ingestY'];
    const batch = (a: string, b: string, n: number) =>
      Array.from({ length: 50 }, (_, i) => entry(`act_${n}x${i}`, i % 2 === 0 ? a : b));
    const results = await Promise.all([
      withTransaction(pool, (c) => insertAuditEntries(c, batch(x, y, 1).map(renderEntry))),
      ingestAuditEntries(pool, batch(y, x, 2)),
      ingestAuditEntries(pool, batch(x, y, 3)),
    ]);
    expect(results.map((r) => (r.get(x) ?? 0) + (r.get(y) ?? 0))).toEqual([50, 50, 50]);
    for (const brand of [x, y])
      expect((await stored(brand)).map((r) => Number(r.seq))).toEqual(
        Array.from({ length: 75 }, (_, i) => i + 1),
      );
  });
});

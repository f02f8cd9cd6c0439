// A relay claims a brand's events only from its oldest unpublished one. The claim used to try each
// row's brand lock as it scanned, with `skip locked`: a row locked by anything else at that instant
// (a failed batch's attempts being recorded after its rollback, an operator's statement) was
// skipped and the rows behind it taken, and a brand whose lock came free part-way through the scan
// (another replica committing) was passed over for its older rows and taken for later ones; those
// were then published first. The fresh-clone CI run of 2026-11-30 23:08 saw it in outbox.replicas
// (one event of a brand published six places early). The claim now takes each brand's lock once,
// then its oldest rows, waiting for a row another statement holds. Real PostgreSQL.
import type { PoolClient } from 'pg';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { claimUnpublished } from '../../src/outbox/outboxRepo';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `insert into records.brands (id, name, tier, verified)
     values ('br_claimx', 'Claim X', 'plus', true), ('br_claimy', 'Claim Y', 'plus', true)`,
  );
});
afterAll(() => db?.close());

const insertEvents = async (brand: string, ids: string[]): Promise<void> => {
  for (const id of ids) {
    await db.pool.query(
      `insert into records.outbox (id, brand_id, type, payload) values ($1, $2, 'payout.paid', '{}')`,
      [id, brand],
    );
  }
};

/** Runs `fn` in a transaction on a client whose schema is records', as the service's are. */
async function inTransaction<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  try {
    await client.query('begin');
    await client.query('set local search_path to records');
    return await fn(client);
  } finally {
    await client.query('rollback');
    client.release();
  }
}

it("waits for a brand's oldest event that another transaction holds, then claims the brand from it", async () => {
  await insertEvents('br_claimx', ['evt_x1', 'evt_x2', 'evt_x3']);
  await insertEvents('br_claimy', ['evt_y1', 'evt_y2']);
  // evt_x1 held elsewhere, as recordPublishFailure's update after a failed batch holds it
  const holder = await db.pool.connect();
  let claimed: string[] | undefined;
  try {
    await holder.query('begin');
    await holder.query(`update records.outbox set attempts = attempts + 1 where id = 'evt_x1'`);
    const claim = inTransaction(async (c) => (await claimUnpublished(c, 100)).map((r) => r.id));
    void claim.then((ids) => (claimed = ids));
    await new Promise((r) => setTimeout(r, 500));
    expect(claimed).toBeUndefined();
    await holder.query('commit');
    expect(await claim).toEqual(['evt_x1', 'evt_x2', 'evt_x3', 'evt_y1', 'evt_y2']);
  } finally {
    await holder.query('rollback'); // after the commit: nothing to end, a warning only
    holder.release();
  }
});

it('leaves a brand another relay holds to it, and claims the others', async () => {
  await db.pool.query('update records.outbox set published_at = now()');
  await insertEvents('br_claimx', ['evt_x4', 'evt_x5']);
  await insertEvents('br_claimy', ['evt_y3']);
  await inTransaction(async (relayA) => {
    expect((await claimUnpublished(relayA, 1)).map((r) => r.id)).toEqual(['evt_x4']);
    const relayB = await inTransaction(async (c) =>
      (await claimUnpublished(c, 100)).map((r) => r.id),
    );
    expect(relayB).toEqual(['evt_y3']);
  });
});

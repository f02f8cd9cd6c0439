import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { claimDueDeliveries, claimFedDeliveries } from '../../src/claim/claimRepo';

// The feed's claim by primary key takes a delivery on exactly the scan's terms: pending, due, not
// leased (or the lease expired), of an enabled receiver, not locked by another claim (SKIP LOCKED,
// without waiting), and leases what it takes, so the scan and other workers leave it alone.
// Anything else it names is not returned.

const AT = '2026-11-25T10:00:00.000Z';
const LEASE_MS = 60_000;
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  for (const [id, enabled] of [
    ['rcv_on', true],
    ['rcv_off', false],
  ] as const)
    await db.pool.query(
      `insert into webhooks.receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by, created_at, enabled)
       values ($1, 'br_key', 'https://receiver.example/hook', $1, '{payout.paid}', '\\x00', 'k1', 'test', '2026-01-01', $2)`,
      [id, enabled],
    );
  // one delivery per case, each of its own event-receiver pair (the unique key)
  const cases: Array<[string, string, string]> = [
    ['dlv_fresh', 'rcv_on', ''],
    ['dlv_leased', 'rcv_on', `lease_until = now() + interval '1 minute'`],
    ['dlv_expired', 'rcv_on', `lease_until = now() - interval '1 second'`],
    ['dlv_later', 'rcv_on', `next_attempt_at = now() + interval '1 hour'`],
    ['dlv_done', 'rcv_on', `status = 'succeeded', completed_at = now()`],
    ['dlv_locked', 'rcv_on', ''],
    ['dlv_off', 'rcv_off', ''],
  ];
  for (const [id, receiver, set] of cases) {
    await db.pool.query(
      `insert into webhooks.events (id, brand_id, type, created_at, object_json)
       values ($1, 'br_key', 'payout.paid', $2, '{"id":"po_key"}')`,
      [`evt_${id}`, AT],
    );
    await db.pool.query(
      `insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id)
       values ($1, $2, $3, 'payout.paid', $4, 'br_key')`,
      [id, `evt_${id}`, AT, receiver],
    );
    if (set) await db.pool.query(`update webhooks.deliveries set ${set} where id = $1`, [id]);
  }
});
afterAll(() => db?.close());

it('takes only what the scan would take, and leases it', async () => {
  const named = [
    'dlv_fresh',
    'dlv_leased',
    'dlv_expired',
    'dlv_later',
    'dlv_done',
    'dlv_locked',
    'dlv_off',
  ].map((id) => ({ id, eventAt: AT }));
  // another claim holds dlv_locked's row: skipped at once, not waited for
  const holder = await db.pool.connect();
  try {
    await holder.query('begin');
    await holder.query(`select 1 from webhooks.deliveries where id = 'dlv_locked' for update`);
    const started = Date.now();
    const claimed = await claimFedDeliveries(db.pool, named, LEASE_MS);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(claimed.map((d) => d.id).sort()).toEqual(['dlv_expired', 'dlv_fresh']);
    // each with what the attempt needs: the event and the receiver's target
    const fresh = claimed.find((d) => d.id === 'dlv_fresh')!;
    expect(fresh).toMatchObject({
      receiver_id: 'rcv_on',
      event_id: 'evt_dlv_fresh',
      event_type: 'payout.paid',
      object_json: '{"id":"po_key"}',
      attempts: 0,
      target: { id: 'rcv_on', url: 'https://receiver.example/hook', enabled: true },
    });
    expect(Date.parse(fresh.event_created_at)).toBe(Date.parse(AT));
  } finally {
    await holder.query('rollback');
    holder.release();
  }
  // leased now: neither a second claim by key nor the scan takes them again
  expect(await claimFedDeliveries(db.pool, named.slice(0, 3), LEASE_MS)).toEqual([]);
  const scanned = await claimDueDeliveries(db.pool, {
    limit: 10,
    perReceiver: 10,
    receiverRoom: new Map(),
    receivers: { except: [] },
    leaseMs: LEASE_MS,
  });
  expect(scanned.map((d) => d.id)).toEqual(['dlv_locked']);
  // a key whose partition key (event_at) is not the row's names nothing
  await db.pool.query(`update webhooks.deliveries set lease_until = null where id = 'dlv_fresh'`);
  expect(
    await claimFedDeliveries(
      db.pool,
      [{ id: 'dlv_fresh', eventAt: '2026-11-25T10:00:00.001Z' }],
      LEASE_MS,
    ),
  ).toEqual([]);
  const { rows } = await db.pool.query<{ id: string; leased: boolean }>(
    `select id, lease_until > now() + interval '50 seconds' as leased from webhooks.deliveries
     where id in ('dlv_expired', 'dlv_locked') order by id`,
  );
  expect(rows).toEqual([
    { id: 'dlv_expired', leased: true },
    { id: 'dlv_locked', leased: true },
  ]);
});

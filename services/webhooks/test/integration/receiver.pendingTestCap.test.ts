// At most ten pending Tests per receiver (and per audit stream). Each Test stores an event, a
// delivery and an activity entry, and nothing bounded them: a script with an owner's session
// could loop the Test action and grow storage, the brand's activity log and the workers' queue
// without limit (a hostile review of one brand against the shared service, 2026-12-01). One at
// a time refused what people do (a Test of each event type back to back), so the bound is ten
// waiting: the eleventh is refused with precondition_failed, saying how many wait; fourteen at
// once queue ten. Real processes: an admin and consumer process with no worker at first, so the
// Tests stay queued; a worker only once the refusals are shown (the second case).
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { createTestDatabase, waitFor, type TestDatabase } from '@brand/testkit';
import { PENDING_TESTS } from '../../src/log/deliveryRepo';
import { testStream } from '../../src/streams/streamService';
import { datadogStream, OWNER, streamDeps } from '../support/auditStreamFixtures';
import { newBrandId, startHarness, type Harness } from './harness';

const CAP = 10;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'test-cap', env: { WEBHOOKS_ROLES: 'admin,consumer' } });
});
afterAll(() => h?.close());

const TYPES = ['payout.paid', 'submission.approved'] as const;

const test = (id: string, type: (typeof TYPES)[number] = TYPES[0], withNewSecret = false) =>
  h.client.call('testReceiver', {
    receiver_id: id,
    event_type: EVENT_TYPES.toProto(type),
    with_new_secret: withNewSecret,
  });

const testRows = async (id: string) =>
  (
    await h.db.pool.query<{ id: string; status: string }>(
      `select id, status from webhooks.deliveries where receiver_id = $1 and test`,
      [id],
    )
  ).rows;

const testedEntries = async (brand: string) =>
  (
    await h.db.pool.query(
      `select 1 from webhooks.activity where brand_id = $1 and action = 'receiver.tested'`,
      [brand],
    )
  ).rowCount;

const refusal = (what: string) => ({
  code: 'precondition_failed',
  message: expect.stringMatching(
    new RegExp(`^${what} already has ${CAP} Tests waiting .*at most ${CAP}`),
  ) as unknown,
});

describe(`at most ${CAP} pending Tests per receiver`, () => {
  it(`queues ${CAP} of 14 Tests sent at once`, async () => {
    const brand = newBrandId();
    const r = await h.addReceiver({ brandId: brand, events: [...TYPES] });
    const calls = await Promise.allSettled(Array.from({ length: 14 }, () => test(r.receiver.id)));
    expect(calls.filter((c) => c.status === 'fulfilled')).toHaveLength(CAP);
    for (const c of calls.filter((x) => x.status === 'rejected'))
      expect(c.reason).toMatchObject({ code: 'precondition_failed' });
    expect(await testRows(r.receiver.id)).toHaveLength(CAP);
    expect(await testedEntries(brand)).toBe(CAP);
  });

  it('refuses the eleventh, the rotation’s Test too; accepts Tests again once they end', async () => {
    const brand = newBrandId();
    const r = await h.addReceiver({ brandId: brand, events: [...TYPES] });
    // each type back to back, as a person checking each sample does, up to the cap
    for (let i = 0; i < CAP; i++) await test(r.receiver.id, TYPES[i % TYPES.length]);
    await expect(test(r.receiver.id)).rejects.toMatchObject(
      refusal(`Receiver "${r.receiver.label}"`),
    );
    // a Test signed with a rotation's new secret is a Test of the same receiver
    const { new_secret } = await h.client.call('rotateSecret', {
      receiver_id: r.receiver.id,
      actor_email: '',
    });
    r.secrets.push(new_secret);
    await expect(test(r.receiver.id, TYPES[0], true)).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect(await testRows(r.receiver.id)).toHaveLength(CAP);
    expect(await testedEntries(brand)).toBe(CAP);

    // once a worker has attempted them, the receiver can be tested again
    await h.another({ WEBHOOKS_ROLES: 'worker' });
    await waitFor(
      async () => (await testRows(r.receiver.id)).every((d) => d.status !== 'pending') || undefined,
      { timeoutMs: 30_000, what: 'the ten Tests attempted' },
    );
    const { delivery } = await test(r.receiver.id, TYPES[0], true);
    expect(delivery).toMatchObject({ test: true, signed_with_new_secret: true });
    await waitFor(
      async () =>
        (await h.client.call('getDelivery', { delivery_id: delivery!.id })).delivery?.status ===
          DeliveryStatus.DELIVERY_STATUS_SUCCEEDED || undefined,
      { timeoutMs: 30_000, what: 'the rotation’s Test delivered' },
    );
  });
});

describe(`at most ${CAP} pending Tests per audit stream`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.close());

  it(`refuses the eleventh Test entry; 14 at once queue ${CAP}`, async () => {
    const deps = streamDeps(db.pool);
    const stream = await datadogStream(deps);
    for (let i = 0; i < CAP; i++) await testStream(deps, stream, OWNER);
    await expect(testStream(deps, stream, OWNER)).rejects.toMatchObject(
      refusal(`Audit stream "${stream.label}"`),
    );

    const other = await datadogStream(deps);
    const calls = await Promise.allSettled(
      Array.from({ length: 14 }, () => testStream(deps, other, OWNER)),
    );
    expect(calls.filter((c) => c.status === 'fulfilled')).toHaveLength(CAP);
    const { rows } = await db.pool.query<{ receiver_id: string; n: number }>(
      `select receiver_id, count(*)::int as n from deliveries where test and receiver_id = any($1)
        group by receiver_id order by n`,
      [[stream.id, other.id]],
    );
    expect(rows.map((r) => r.n)).toEqual([CAP, CAP]);
  });

  it('counts a receiver’s waiting Tests without reading its backlog', async () => {
    const deps = streamDeps(db.pool);
    const stream = await datadogStream(deps);
    // a receiver that is down holds a backlog of pending business deliveries
    await db.pool.query(
      `insert into deliveries (id, event_id, event_at, event_type, receiver_id, brand_id)
       select 'dlv_backlog' || g, 'evt_backlog' || g, now(), 'payout.paid', $1, $2
         from generate_series(1, 20000) g`,
      [stream.id, stream.brand_id],
    );
    await testStream(deps, stream, OWNER);
    const { rows } = await db.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `explain (analyze, format json) ${PENDING_TESTS}`,
      [stream.id, CAP],
    );
    // through deliveries_pending_receiver, the 20,000 were read to find the one Test
    const read = rowsRead(rows[0]!['QUERY PLAN'][0]!.Plan);
    expect(read).toEqual({ returned: 1, removedByFilter: 0 });
  });
});

interface PlanNode {
  'Node Type': string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** The rows the plan's scans returned and the rows they read and threw away. */
function rowsRead(plan: PlanNode): { returned: number; removedByFilter: number } {
  const scans: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    if (n['Node Type'].includes('Scan')) scans.push(n);
    n.Plans?.forEach(walk);
  };
  walk(plan);
  return {
    returned: scans.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0), 0),
    removedByFilter: scans.reduce((sum, n) => sum + (n['Rows Removed by Filter'] ?? 0), 0),
  };
}

// At most one pending Test per receiver (and per audit stream). Each Test stores an event, a
// delivery and an activity entry, and nothing bounded them: a script with an owner's session
// could loop the Test action and grow storage, the brand's activity log and the workers' queue
// without limit (a hostile review of one brand against the shared service, 2026-12-01). A Test
// while another of the same receiver is still pending (queued, or its one attempt in flight) is
// now refused with precondition_failed, naming the pending one and when it was queued; two at
// once queue one. Real processes: an admin and consumer process with no worker at first, so the
// first Test stays queued; a worker only once the refusals are shown (the last case).
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { createTestDatabase, waitFor, type TestDatabase } from '@brand/testkit';
import { testStream } from '../../src/streams/streamService';
import { datadogStream, OWNER, streamDeps } from '../support/auditStreamFixtures';
import { newBrandId, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'one-test', env: { WEBHOOKS_ROLES: 'admin,consumer' } });
});
afterAll(() => h?.close());

const PAID = 'payout.paid' as const;

const test = (id: string, withNewSecret = false) =>
  h.client.call('testReceiver', {
    receiver_id: id,
    event_type: EVENT_TYPES.toProto(PAID),
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

const refusal = (deliveryId: string) => ({
  code: 'precondition_failed',
  message: expect.stringMatching(
    new RegExp(
      `A Test of .* is already queued \\(${deliveryId}, queued at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)`,
    ),
  ) as unknown,
});

describe('one pending Test per receiver', () => {
  it('queues one of six Tests sent at once', async () => {
    const brand = newBrandId();
    const r = await h.addReceiver({ brandId: brand, events: [PAID] });
    const calls = await Promise.allSettled(Array.from({ length: 6 }, () => test(r.receiver.id)));
    const queued = calls.filter((c) => c.status === 'fulfilled');
    expect(queued).toHaveLength(1);
    for (const c of calls.filter((x) => x.status === 'rejected'))
      expect(c.reason).toMatchObject({ code: 'precondition_failed' });
    expect(await testRows(r.receiver.id)).toHaveLength(1);
    expect(await testedEntries(brand)).toBe(1);
  });

  it('refuses a second Test while the first is queued, the rotation’s Test too; accepts one again once it ends', async () => {
    const brand = newBrandId();
    const r = await h.addReceiver({ brandId: brand, events: [PAID] });
    const { delivery: first } = await test(r.receiver.id);
    await expect(test(r.receiver.id)).rejects.toMatchObject(refusal(first!.id));
    // a Test signed with a rotation's new secret is a Test of the same receiver
    const { new_secret } = await h.client.call('rotateSecret', {
      receiver_id: r.receiver.id,
      actor_email: '',
    });
    r.secrets.push(new_secret);
    await expect(test(r.receiver.id, true)).rejects.toMatchObject(refusal(first!.id));
    expect(await testRows(r.receiver.id)).toEqual([{ id: first!.id, status: 'pending' }]);
    expect(await testedEntries(brand)).toBe(1);

    // once a worker has attempted it, the receiver can be tested again
    await h.another({ WEBHOOKS_ROLES: 'worker' });
    await waitFor(
      async () =>
        (await h.client.call('getDelivery', { delivery_id: first!.id })).delivery?.status ===
          DeliveryStatus.DELIVERY_STATUS_SUCCEEDED || undefined,
      { timeoutMs: 30_000 },
    );
    const { delivery: second } = await test(r.receiver.id, true);
    expect(second).toMatchObject({ test: true, signed_with_new_secret: true });
  });
});

describe('one pending Test per audit stream', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.close());

  it('refuses a second Test entry while the first is queued; two at once queue one', async () => {
    const deps = streamDeps(db.pool);
    const stream = await datadogStream(deps);
    const first = await testStream(deps, stream, OWNER);
    await expect(testStream(deps, stream, OWNER)).rejects.toMatchObject(refusal(first));

    const other = await datadogStream(deps);
    const calls = await Promise.allSettled(
      Array.from({ length: 6 }, () => testStream(deps, other, OWNER)),
    );
    expect(calls.filter((c) => c.status === 'fulfilled')).toHaveLength(1);
    const { rows } = await db.pool.query(
      `select receiver_id from deliveries where test and receiver_id = any($1)`,
      [[stream.id, other.id]],
    );
    expect(rows).toHaveLength(2);
  });
});

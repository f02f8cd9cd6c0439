// A receiver's change carrying the updated_at it was decided on (if_updated_at: the console reads
// the receiver, sends only what the owner changed, and this) is written only onto that receiver
// (a review of lost updates, 2026-12-01). Without it, the console's read and its write were two
// calls: a change by another owner (or brandctl, or the API) committing between them was replaced
// unseen, a selection of events replaced whole. The receiver's updated_at is compared under its
// row's lock, at the write; deliveries do not move it. Each race queues the two changes behind a
// lock on the receiver's row, read before either writes.
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { outcomeOf, queueBehindRowLock } from '@brand/testkit';
import { newBrandId, receiverState, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'ontoread' });
});
afterAll(async () => {
  await h?.close();
});

const PAID = 'payout.paid' as const;
const APPROVED = 'submission.approved' as const;

async function receiver() {
  const brandId = newBrandId();
  const { receiver } = await h.client.call('addReceiver', {
    brand_id: brandId,
    url: 'https://127.0.0.1:8443/hooks',
    label: 'Payouts',
    events: [EVENT_TYPES.toProto(PAID)],
    actor_email: 'owner@example.com',
  });
  return { brandId, read: receiver! };
}

const update = (
  id: string,
  change: { label?: string; events?: EventTypeName[] },
  ifUpdatedAt?: string,
) =>
  h.client.call('updateReceiver', {
    receiver_id: id,
    label: change.label,
    events: (change.events ?? []).map((e) => EVENT_TYPES.toProto(e)),
    if_updated_at: ifUpdatedAt,
  });

const queued = (id: string, first: () => Promise<unknown>, second: () => Promise<unknown>) =>
  queueBehindRowLock(
    h.db.pool,
    { sql: 'select 1 from webhooks.receivers where id = $1 for update', params: [id] },
    [outcomeOf(first), outcomeOf(second)] as const,
  );

const stored = async (brandId: string, id: string) => {
  const r = await receiverState(h, brandId, id);
  return { label: r.label, events: r.events.map((e) => EVENT_TYPES.fromProto(e)) };
};

it('answers the updated_at a change names, moved by every change', async () => {
  const { brandId, read } = await receiver();
  expect(read.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const { receiver: renamed } = await update(read.id, { label: 'Payouts (EU)' }, read.updated_at);
  expect(renamed!.updated_at > read.updated_at).toBe(true);
  expect((await receiverState(h, brandId, read.id)).updated_at).toBe(renamed!.updated_at);
});

it('refuses a change decided on a receiver changed since (if_updated_at)', async () => {
  const { brandId, read } = await receiver();
  await update(read.id, { events: [PAID, APPROVED] });
  await expect(update(read.id, { events: [APPROVED] }, read.updated_at)).rejects.toMatchObject({
    code: 'precondition_failed',
  });
  expect(await stored(brandId, read.id)).toEqual({ label: 'Payouts', events: [PAID, APPROVED] });
});

it('refuses the second of two changes that read the receiver before either wrote', async () => {
  const { brandId, read } = await receiver();
  const [widened, narrowed] = await queued(
    read.id,
    () => update(read.id, { events: [PAID, APPROVED] }, read.updated_at),
    () => update(read.id, { events: [APPROVED] }, read.updated_at),
  );
  expect(widened).toEqual({ ok: true });
  expect(narrowed).toEqual({ ok: false, code: 'precondition_failed' });
  expect(await stored(brandId, read.id)).toEqual({ label: 'Payouts', events: [PAID, APPROVED] });
});

it('a change without the precondition is written as before (brandctl, the API)', async () => {
  const { brandId, read } = await receiver();
  const [widened, renamed] = await queued(
    read.id,
    () => update(read.id, { events: [PAID, APPROVED] }),
    () => update(read.id, { label: 'Payouts (EU)' }),
  );
  expect([widened, renamed]).toEqual([{ ok: true }, { ok: true }]);
  expect(await stored(brandId, read.id)).toEqual({
    label: 'Payouts (EU)',
    events: [PAID, APPROVED],
  });
});

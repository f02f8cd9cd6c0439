// An audit stream's change carrying the updated_at it was decided on (if_updated_at: the console
// reads the stream, sends only what the owner changed, and this) is written only onto that stream
// (a review of lost updates, 2026-12-01). updateStream already writes a destination or token only
// onto the destination its handler read (auditStreams.concurrentSaves), but the console's read is a
// call before that: a rename, or a move to another host, committing between the two was replaced
// unseen, and a token typed for the host the page showed was stored for the host another owner
// had moved the stream to. The stream's updated_at is compared under its row's lock, at the write.
import { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import { connectClient, createCaller } from '@brand/shared/grpc';
import { outcomeOf, queueBehindRowLock, TEST_ADMIN_TOKEN } from '@brand/testkit';
import { newBrandId, startHarness, type Harness } from './harness';

let h: Harness;
let client: AuditStreamServiceClient;
let streams: ReturnType<typeof createCaller<AuditStreamServiceClient>>;

beforeAll(async () => {
  h = await startHarness({ label: 'streamontoread' });
  client = connectClient(AuditStreamServiceClient, h.webhooks.address);
  streams = createCaller(client, { deadlineMs: 10_000, token: TEST_ADMIN_TOKEN });
});
afterAll(async () => {
  client?.close();
  await h?.close();
});

const OLD_HOST = 'https://127.0.0.1:8088/services/collector/event';
const NEW_HOST = 'https://localhost:8088/services/collector/event';

async function splunkStream() {
  const { stream } = await streams('addAuditStream', {
    brand_id: newBrandId(),
    kind: 'splunk_hec',
    label: 'Splunk',
    url: OLD_HOST,
    token: '5c1e7a52-3c1b-4a7e-9d2f-0b6f1c2d3e4f',
    datadog_site: '',
    splunk_index: 'brand_audit',
    actor_email: 'owner@example.com',
  });
  return stream!;
}

const update = (
  id: string,
  change: { label?: string; url?: string; token?: string },
  ifUpdatedAt?: string,
) =>
  streams('updateAuditStream', {
    stream_id: id,
    ...change,
    actor_email: 'owner@example.com',
    if_updated_at: ifUpdatedAt,
  });

const stored = async (id: string) => {
  const { stream } = await streams('getAuditStream', { stream_id: id, deliveries: 0 });
  return { label: stream!.label, url: stream!.url, updated_at: stream!.updated_at };
};

it('refuses a token typed for the host the page showed once the stream moved (if_updated_at)', async () => {
  const read = await splunkStream();
  await update(read.id, { url: NEW_HOST, token: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' });
  const moved = await stored(read.id);
  expect(moved.updated_at > read.updated_at).toBe(true);
  await expect(
    update(read.id, { token: 'ffffffff-0000-4000-8000-000000000000' }, read.updated_at),
  ).rejects.toMatchObject({ code: 'precondition_failed' });
  expect(await stored(read.id)).toEqual(moved);
});

it('refuses the second of two renames that read the stream before either wrote', async () => {
  const read = await splunkStream();
  const [first, second] = await queueBehindRowLock(
    h.db.pool,
    { sql: 'select 1 from webhooks.receivers where id = $1 for update', params: [read.id] },
    [
      outcomeOf(() => update(read.id, { label: 'Splunk (security)' }, read.updated_at)),
      outcomeOf(() => update(read.id, { label: 'Splunk (ops)' }, read.updated_at)),
    ] as const,
  );
  expect(first).toEqual({ ok: true });
  expect(second).toEqual({ ok: false, code: 'precondition_failed' });
  expect((await stored(read.id)).label).toBe('Splunk (security)');
});

it('a change without the precondition is written as before (brandctl, the API)', async () => {
  const read = await splunkStream();
  const [first, second] = await queueBehindRowLock(
    h.db.pool,
    { sql: 'select 1 from webhooks.receivers where id = $1 for update', params: [read.id] },
    [
      outcomeOf(() => update(read.id, { label: 'Splunk (security)' })),
      outcomeOf(() => update(read.id, { label: 'Splunk (ops)' })),
    ] as const,
  );
  expect([first, second]).toEqual([{ ok: true }, { ok: true }]);
  expect((await stored(read.id)).label).toBe('Splunk (ops)');
});

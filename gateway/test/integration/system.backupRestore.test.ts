// Issue 60: a backup restored (docs/operating.md "Backups and restore"). A dump is taken with
// pg_dump while business changes flow and are delivered; it is restored into a fresh database,
// where the services start (the migrations find nothing to apply) and serve the brand's records
// with its key. What the restored database had not yet published is published again with its
// event ids, and every delivery after the restore is of an event the receiver already had: a
// duplicate it deduplicates, never a stranger.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { RunningReceiver } from '@brand/example-receiver';
import {
  createEmptyDatabase,
  createTestCa,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  makeBrandWithKey,
  makeRecords,
  runMigrateScript,
  runPostgresTool,
  startChangeFlow,
  startGateway,
  startRecords,
  startRegisteredReceiver,
  startStack,
  startWebhooks,
  stopAllServices,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type Stack,
  type TestCa,
} from '@brand/testkit';

let stack: Stack;
let ca: TestCa;
let receiver: RunningReceiver;
let dumpDir: string;
let restored: Awaited<ReturnType<typeof createEmptyDatabase>> | undefined;
const topic = uniqueTopic('restore');
const groupId = uniqueConsumerGroup('restore');

beforeAll(async () => {
  ca = createTestCa();
  dumpDir = mkdtempSync(path.join(tmpdir(), 'brand-dump-'));
  await createTopic(topic, 3);
  // records' RPCs in the stack; its outbox relay in a records process of its own, which the
  // test stops before the dump, so the dump holds events not yet published (as a backup does
  // whenever the relay is behind)
  stack = await startStack({
    recordsEnv: { OUTBOX_RELAY_ENABLED: 'false' },
    webhooks: { topic, groupId, caFile: ca.caFile },
  });
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
  await stopAllServices();
  await restored?.close();
  await deleteTopic(topic).catch(() => undefined);
  ca?.remove();
  if (dumpDir) rmSync(dumpDir, { recursive: true, force: true });
}, 60_000);

const idOf = (r: { event: { id: string } | undefined }) => r.event?.id ?? '';

/** A records process that only relays the outbox to Kafka (its RPCs unused). */
const startRelay = (databaseUrl: string) =>
  startRecords({
    databaseUrl,
    redisKeyPrefix: stack.redisKeyPrefix,
    env: { KAFKA_BROKERS: testKafkaBrokers().join(','), BUSINESS_EVENTS_TOPIC: topic },
  });

it('restores a dump taken mid-traffic into a fresh database; the services start on it and re-send only what receivers already have', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  await makeRecords(stack.db.pool, brand.brand.id, 'campaigns', 5);
  const client = createWebhooksClient(stack.webhooks!.address);
  ({ server: receiver } = await startRegisteredReceiver({
    client,
    ca,
    brandId: brand.brand.id,
    events: ['submission.approved'],
    keepReceived: 10_000,
  }));
  client.close();

  // changes flow (one every 50 ms) while the dump is taken
  let relay = await startRelay(stack.db.url);
  const flow = startChangeFlow({
    admin: stack.admin,
    pool: stack.db.pool,
    brandId: brand.brand.id,
    everyMs: 50,
  });
  await waitFor(() => flow.count() >= 10, { what: 'changes before the relay stops' });
  await relay.stop();
  await waitFor(() => flow.count() >= 20, { what: 'changes waiting in the outbox' });
  const dumpFile = path.join(dumpDir, 'brand.dump');
  const acceptedBeforeDump = flow.count();
  await runPostgresTool('pg_dump', ['--format=custom', `--file=${dumpFile}`, stack.db.url]);
  relay = await startRelay(stack.db.url);
  await waitFor(() => flow.count() >= acceptedBeforeDump + 15, {
    what: 'changes after the dump',
  });
  const accepted = await flow.stop();
  await receiver.waitFor((got) => accepted.every((id) => got.some((r) => idOf(r) === id)), 60_000);
  const receivedBeforeRestore = receiver.received.length;
  const seenBeforeRestore = new Set(receiver.received.map(idOf));

  // the old system goes away; the dump is restored into a fresh database
  await stopAllServices();
  restored = await createEmptyDatabase();
  await runPostgresTool('pg_restore', ['--no-owner', `--dbname=${restored.url}`, dumpFile]);
  const db = new pg.Pool({ connectionString: restored.url, max: 2 });
  try {
    const { rows: outbox } = await db.query<{ id: string; published: boolean }>(
      'select id, published_at is not null as published from records.outbox',
    );
    const inDump = new Set(outbox.map((r) => r.id));
    const unpublishedAtDump = outbox.filter((r) => !r.published).map((r) => r.id);
    // taken mid-traffic: some changes are in it, the later ones are not, and some of its events
    // were not yet published
    expect(inDump.size).toBeGreaterThanOrEqual(acceptedBeforeDump);
    expect(accepted.filter((id) => !inDump.has(id)).length).toBeGreaterThan(0);
    expect(unpublishedAtDump.length).toBeGreaterThan(0);

    // the tree's migrations find the restored schemas up to date, and the services start on it
    for (const service of ['records', 'plans', 'webhooks'])
      await runMigrateScript(service, restored.url);
    const records = await startRecords({
      databaseUrl: restored.url,
      redisKeyPrefix: stack.redisKeyPrefix,
      env: { KAFKA_BROKERS: testKafkaBrokers().join(','), BUSINESS_EVENTS_TOPIC: topic },
    });
    await startWebhooks({ databaseUrl: restored.url, topic, groupId, caFile: ca.caFile });
    const gateway = await startGateway({
      recordsAddr: records.address,
      redisKeyPrefix: stack.redisKeyPrefix,
    });
    const res = await fetch(`${gateway.url}/api/v1/campaigns`, {
      headers: { authorization: `Bearer ${brand.secret}` },
    });
    expect(res.status).toBe(200);
    const { rows: campaigns } = await db.query<{ n: number }>(
      'select count(*)::int as n from records.campaigns where brand_id = $1',
      [brand.brand.id],
    );
    expect(campaigns[0]!.n).toBeGreaterThanOrEqual(5);
    expect(((await res.json()) as { count: number }).count).toBe(campaigns[0]!.n);

    // what the restored outbox had not published goes out again, with its own event ids
    await waitFor(
      async () =>
        (await db.query('select 1 from records.outbox where published_at is null')).rowCount === 0,
      { timeoutMs: 30_000, what: 'the restored outbox published' },
    );
    await receiver.waitFor(
      (got) =>
        unpublishedAtDump.every((id) =>
          got.slice(receivedBeforeRestore).some((r) => idOf(r) === id),
        ),
      60_000,
    );
    const afterRestore = receiver.received.slice(receivedBeforeRestore);
    expect(afterRestore.length).toBeGreaterThanOrEqual(unpublishedAtDump.length);
    // every delivery after the restore: an event of the restored database the receiver had
    // processed before, verified and answered as a duplicate
    for (const d of afterRestore) {
      expect(inDump.has(idOf(d))).toBe(true);
      expect(seenBeforeRestore.has(idOf(d))).toBe(true);
      expect(d.verdict.ok).toBe(true);
      expect(d.outcome).toBe('duplicate');
    }
  } finally {
    await db.end();
  }
}, 240_000);

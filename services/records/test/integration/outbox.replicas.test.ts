// Several records replicas relay the same outbox at once. They share the work (skip locked) without
// publishing anything twice, and a per-brand advisory lock keeps each brand's events in commit
// order even though two relays are claiming batches.
import {
  createAdminClient,
  createTestDatabase,
  startRecords,
  stopAllServices,
  uniqueRedisPrefix,
  waitFor,
  type RecordsProcess,
  type TestDatabase,
  makePendingSubmissions,
} from '@brand/testkit';
import { createEventTopic, TEST_KAFKA_BROKERS, type EventTopic } from './eventTopic';

let db: TestDatabase;
let topic: EventTopic;
let replicas: RecordsProcess[];

beforeAll(async () => {
  db = await createTestDatabase();
  topic = await createEventTopic(3);
  const redisKeyPrefix = uniqueRedisPrefix();
  replicas = await Promise.all(
    [0, 1, 2].map(() =>
      startRecords({
        databaseUrl: db.url,
        redisKeyPrefix,
        env: {
          KAFKA_BROKERS: TEST_KAFKA_BROKERS,
          BUSINESS_EVENTS_TOPIC: topic.topic,
          // small batches, so the replicas really interleave
          OUTBOX_BATCH_SIZE: '5',
          OUTBOX_POLL_MS: '100',
        },
      }),
    ),
  );
});
afterAll(async () => {
  await stopAllServices();
  await topic?.close();
  await db?.close();
});

it('three relaying replicas publish every event once, each brand in order', async () => {
  const admins = replicas.map((r) => createAdminClient(r.address));
  try {
    const brands = await Promise.all([0, 1, 2, 3].map(() => admins[0]!.createBrand()));
    const committed = await Promise.all(
      brands.map(async ({ brand }, b) => {
        const subs = await makePendingSubmissions(db.pool, brand.id, 60);
        const ids: string[] = [];
        for (const [i, s] of subs.entries()) {
          // spread the changes over the replicas: each relays what it and the others wrote
          const admin = admins[(b + i) % admins.length]!;
          ids.push((await admin.records('approveSubmission', { submission_id: s.id })).event_id);
        }
        return ids;
      }),
    );
    const total = committed.flat().length;
    await waitFor(() => topic.messages.length >= total, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: `${total} events on Kafka`,
    });
    await new Promise((r) => setTimeout(r, 1_000)); // would-be duplicates have time to arrive
    expect(topic.messages).toHaveLength(total);
    brands.forEach(({ brand }, b) => {
      const seen = topic.messages.filter((m) => m.key === brand.id).map((m) => m.event!.id);
      expect(seen).toEqual(committed[b]);
    });
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from records.outbox where published_at is null',
    );
    expect(rows[0]!.n).toBe(0);
  } finally {
    for (const a of admins) a.close();
  }
});

// The records service killed (SIGKILL) between a business change and its relay loses no event. The
// outbox row committed with the change, so whichever records process relays next publishes it; a
// kill between the Kafka acknowledgement and the mark only repeats an event with the same id, which
// consumers dedupe.
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
const redisKeyPrefix = uniqueRedisPrefix();

beforeAll(async () => {
  db = await createTestDatabase();
  topic = await createEventTopic(2);
});
afterAll(async () => {
  await stopAllServices();
  await topic?.close();
  await db?.close();
});

const start = (relay: boolean): Promise<RecordsProcess> =>
  startRecords({
    databaseUrl: db.url,
    redisKeyPrefix,
    env: {
      KAFKA_BROKERS: TEST_KAFKA_BROKERS,
      BUSINESS_EVENTS_TOPIC: topic.topic,
      OUTBOX_RELAY_ENABLED: String(relay),
      OUTBOX_POLL_MS: '200',
    },
  });

const unpublished = async (): Promise<number> => {
  const { rows } = await db.pool.query<{ n: number }>(
    'select count(*)::int as n from records.outbox where published_at is null',
  );
  return rows[0]!.n;
};

const onTopic = (): Set<string> => new Set(topic.messages.map((m) => m.event?.id ?? ''));

describe('records killed', () => {
  it('before relaying: every change made is published by the next process', async () => {
    const first = await start(false);
    const admin = createAdminClient(first.address);
    let brandId: string;
    const eventIds: string[] = [];
    try {
      brandId = (await admin.createBrand()).brand.id;
      const subs = await makePendingSubmissions(db.pool, brandId, 30);
      for (const s of subs) {
        eventIds.push((await admin.records('approveSubmission', { submission_id: s.id })).event_id);
      }
    } finally {
      admin.close();
    }
    await first.kill();
    expect(await unpublished()).toBe(30);
    expect(topic.messages).toHaveLength(0);

    const second = await start(true);
    try {
      await waitFor(() => eventIds.every((id) => onTopic().has(id)), {
        timeoutMs: 20_000,
        what: 'the 30 events on Kafka',
      });
      await waitFor(async () => (await unpublished()) === 0, { what: 'rows marked published' });
      expect(topic.messages.filter((m) => m.key === brandId)).toHaveLength(30);
    } finally {
      await second.stop();
    }
  });

  it('in the middle of a burst with the relay running: every committed event is published', async () => {
    const first = await start(true);
    const admin = createAdminClient(first.address);
    const brandId = (await admin.createBrand()).brand.id;
    const subs = await makePendingSubmissions(db.pool, brandId, 400);
    const accepted: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < subs.length) {
        const s = subs[next++]!;
        const res = await admin
          .records('approveSubmission', { submission_id: s.id })
          .catch(() => undefined);
        if (res) accepted.push(res.event_id);
      }
    };
    const burst = Promise.all(Array.from({ length: 8 }, worker));
    await waitFor(() => accepted.length >= 150, { timeoutMs: 30_000, what: '150 accepted' });
    await first.kill();
    await burst;
    admin.close();
    // calls cut off by the kill may or may not have committed; every accepted one did
    const committed = await outboxIdsOf(brandId);
    expect(committed.length).toBeLessThan(400);
    expect(committed).toEqual(expect.arrayContaining(accepted));

    const second = await start(true);
    try {
      await waitFor(() => committed.every((id) => onTopic().has(id)), {
        timeoutMs: 30_000,
        what: `${committed.length} committed events on Kafka`,
      });
      await waitFor(async () => (await unpublished()) === 0, { what: 'rows marked published' });
      // exactly the committed events; a duplicate (kill between ack and mark) repeats an id
      const mine = topic.messages.filter((m) => m.key === brandId).map((m) => m.event!.id);
      expect(new Set(mine)).toEqual(new Set(committed));
    } finally {
      await second.stop();
    }
  });
});

async function outboxIdsOf(brandId: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    'select id from records.outbox where brand_id = $1',
    [brandId],
  );
  return rows.map((r) => r.id);
}

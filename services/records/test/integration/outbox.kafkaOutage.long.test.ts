// Kafka being down never fails or loses a business change. The change commits with its outbox row;
// the relay waits for a broker (its readiness says so, the backlog gauges count the rows); once
// Kafka is back the accumulated rows drain, every event once per accepted change (a duplicate may only repeat an event id). Two
// outages: a broker unreachable through a paused TCP proxy (shared broker), and this test's own
// broker stopped mid-burst and started again on its data.
import {
  createAdminClient,
  createTestDatabase,
  startRecords,
  stopAllServices,
  tcpProxy,
  uniqueRedisPrefix,
  waitFor,
  type AdminClient,
  type RecordsProcess,
  type TestDatabase,
  makePendingSubmissions,
} from '@brand/testkit';
import { createEventTopic, TEST_KAFKA_BROKERS, type EventTopic } from './eventTopic';
import { ownBroker, type OwnBroker } from './ownBroker';

let db: TestDatabase;
const redisKeyPrefix = uniqueRedisPrefix();

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await stopAllServices();
  await db?.close();
});

function startRelaying(brokers: string, topic: string): Promise<RecordsProcess> {
  return startRecords({
    databaseUrl: db.url,
    redisKeyPrefix,
    env: {
      KAFKA_BROKERS: brokers,
      BUSINESS_EVENTS_TOPIC: topic,
      OUTBOX_POLL_MS: '200',
      OUTBOX_MAX_BACKOFF_MS: '1000',
    },
  });
}

const outboxState = async (ids: string[]) => {
  const { rows } = await db.pool.query<{ unpublished: number; failed: number; error: string }>(
    `select count(*) filter (where published_at is null)::int as unpublished,
       count(*) filter (where attempts > 0 and published_at is null)::int as failed,
       max(last_error) as error
     from records.outbox where id = any($1::text[])`,
    [ids],
  );
  return rows[0]!;
};

async function approveAll(admin: AdminClient, brandId: string, count: number): Promise<string[]> {
  const subs = await makePendingSubmissions(db.pool, brandId, count);
  const ids: string[] = [];
  for (const s of subs) {
    ids.push((await admin.records('approveSubmission', { submission_id: s.id })).event_id);
  }
  return ids;
}

/** Every id is on the topic, and nothing that is not one of `ids` (for this brand). */
async function expectAllPublished(topic: EventTopic, brandId: string, ids: string[]) {
  const want = new Set(ids);
  await waitFor(
    () =>
      new Set(topic.messages.map((m) => m.event?.id)).size >= want.size &&
      ids.every((id) => topic.messages.some((m) => m.event?.id === id)),
    { timeoutMs: 90_000, intervalMs: 250, what: `${ids.length} events on Kafka` },
  );
  const mine = topic.messages.filter((m) => m.key === brandId).map((m) => m.event!.id);
  expect(new Set(mine)).toEqual(want);
  await waitFor(async () => (await outboxState(ids)).unpublished === 0, {
    timeoutMs: 10_000,
    what: 'rows marked published',
  });
}

describe('Kafka unreachable', () => {
  let topic: EventTopic;
  afterAll(() => topic?.close());

  it('accepts changes while the broker cannot be reached and publishes them once it can', async () => {
    topic = await createEventTopic(1);
    const [host, port] = TEST_KAFKA_BROKERS.split(',')[0]!.split(':');
    const proxy = await tcpProxy({ host: host!, port: Number(port) });
    try {
      await proxy.pause();
      const records = await startRelaying(`127.0.0.1:${proxy.port}`, topic.topic);
      const admin = createAdminClient(records.address);
      try {
        const brandId = (await admin.createBrand()).brand.id;
        const ids = await approveAll(admin, brandId, 20);
        expect(new Set(ids).size).toBe(20);
        // the rows wait: the relay connects before it claims (376ba33), so it has claimed none
        // (no attempts recorded) and says why in its readiness; the backlog gauges show them
        const kafka = await waitFor(
          async () => {
            const ready = (await (await fetch(`${records.opsUrl}/readyz`)).json()) as {
              checks: Record<string, string>;
            };
            return ready.checks.kafka !== undefined && ready.checks.kafka !== 'ok'
              ? ready.checks.kafka
              : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 250, what: 'readiness saying the broker is away' },
        );
        expect(kafka).toMatch(/unreachable/);
        expect(await outboxState(ids)).toMatchObject({ unpublished: 20 });
        expect(topic.messages).toHaveLength(0);
        const metrics = await (await fetch(`${records.opsUrl}/metrics`)).text();
        const value = (name: string) =>
          Number(
            /^(\S+) (\S+)$/m.exec(
              metrics.split('\n').find((l) => l.startsWith(`${name} `)) ?? '',
            )?.[2],
          );
        expect(value('outbox_unpublished_events')).toBe(20);
        expect(value('outbox_oldest_unpublished_age_seconds')).toBeGreaterThan(0);

        // Back: the relay bootstraps through the proxy, then talks to the broker it advertises.
        await proxy.resume();
        await expectAllPublished(topic, brandId, ids);
      } finally {
        admin.close();
        await records.stop();
      }
    } finally {
      await proxy.close();
    }
  }, 180_000);
});

describe('Kafka broker restarted mid-burst', () => {
  let broker: OwnBroker;
  let topic: EventTopic;
  beforeAll(async () => {
    broker = ownBroker();
    await broker.start();
    topic = await createEventTopic(2, broker.brokers);
  }, 180_000);
  afterAll(async () => {
    await topic?.close();
    await broker?.remove();
  }, 60_000);

  it('publishes every change made before, during and after the outage', async () => {
    const records = await startRelaying(broker.brokers, topic.topic);
    const admin = createAdminClient(records.address);
    try {
      const brandId = (await admin.createBrand()).brand.id;
      const before = await approveAll(admin, brandId, 50);
      await waitFor(() => topic.messages.length >= 50, { timeoutMs: 30_000, what: 'first 50' });

      const stopping = broker.stop();
      const during = await approveAll(admin, brandId, 50);
      await stopping;
      const whileDown = await approveAll(admin, brandId, 50);
      const state = await outboxState(whileDown);
      expect(state.unpublished).toBe(50);

      await broker.start();
      const after = await approveAll(admin, brandId, 50);
      await expectAllPublished(topic, brandId, [...before, ...during, ...whileDown, ...after]);
    } finally {
      admin.close();
      await records.stop();
    }
  }, 240_000);
});

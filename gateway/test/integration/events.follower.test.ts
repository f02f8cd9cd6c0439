import { AppError } from '@brand/shared/errors';
import {
  createAdminClient,
  createTestDatabase,
  createTopic,
  deleteTopic,
  testKafkaBrokers,
  freePort,
  freeRedisPrefixKeys,
  makeBrandWithKey,
  makePendingSubmissions,
  startGateway,
  startRecords,
  startWebhooks,
  testRedisUrl,
  uniqueConsumerGroup,
  uniqueRedisPrefix,
  uniqueTopic,
  waitFor,
  type AdminClient,
  type ServiceProcess,
  type TestDatabase,
} from '@brand/testkit';

// An integration that follows GET /api/v1/events?after=<stored position>
// sees every event once, in feed-position order, while business changes are made and every
// service is SIGKILLed and restarted in turn (records, then webhooks, then the gateway). The
// follower is what a firewall-bound integration would write: it stores next_after only after
// a page is handled, polls with If-None-Match, and retries any failure. It never deduplicates,
// so a repeat would show. The expected events are records' outbox, the source of truth (a
// change whose reply a killed records lost is still in it).

jest.setTimeout(300_000);

const CHANGES = 120;

let db: TestDatabase;
let topic: string;
let prefix: string;
let admin: AdminClient | undefined;
const running: ServiceProcess[] = [];
/** Stops the follower loop (also when the test fails). */
let stopFollowing = (): void => undefined;

/** One process kind, restartable on the same port (the others keep its address). */
interface Restartable {
  current: ServiceProcess;
  start(): Promise<ServiceProcess>;
}

async function restartable(start: () => Promise<ServiceProcess>): Promise<Restartable> {
  const r: Restartable = { current: await start(), start };
  running.push(r.current);
  return r;
}

async function killAndRestart(r: Restartable): Promise<void> {
  await r.current.kill();
  r.current = await r.start();
  running.push(r.current);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterAll(async () => {
  stopFollowing();
  admin?.close();
  await Promise.all(running.map((p) => p.stop('SIGTERM', 5_000).catch(() => undefined)));
  await db?.close();
  await freeRedisPrefixKeys(prefix, testRedisUrl()).catch(() => undefined);
  await deleteTopic(topic).catch(() => undefined);
});

it('a follower sees every event once, in order, while every service is killed and restarted', async () => {
  db = await createTestDatabase();
  topic = uniqueTopic('follow');
  prefix = uniqueRedisPrefix();
  await createTopic(topic);
  // each service restarts on its port: ports below the ephemeral range, which no outgoing
  // connection takes meanwhile (testkit freePort.ts)
  const [recordsPort, webhooksPort, gatewayPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const records = await restartable(() =>
    startRecords({
      databaseUrl: db.url,
      redisKeyPrefix: prefix,
      env: {
        GRPC_PORT: String(recordsPort),
        KAFKA_BROKERS: testKafkaBrokers().join(','),
        BUSINESS_EVENTS_TOPIC: topic,
        OUTBOX_POLL_MS: '50',
      },
    }),
  );
  const groupId = uniqueConsumerGroup('follow');
  const webhooks = await restartable(() =>
    startWebhooks({
      databaseUrl: db.url,
      topic,
      groupId,
      redisKeyPrefix: prefix,
      env: { GRPC_PORT: String(webhooksPort) },
    }),
  );
  const gateway = await restartable(() =>
    startGateway({
      recordsAddr: `127.0.0.1:${recordsPort}`,
      webhooksAddr: `127.0.0.1:${webhooksPort}`,
      redisKeyPrefix: prefix,
      env: { HTTP_PORT: String(gatewayPort), RATE_LIMIT_SCALE: '100' },
    }),
  );
  admin = createAdminClient(`127.0.0.1:${recordsPort}`);
  const brand = await makeBrandWithKey(admin, { tier: 'enterprise' });
  const pending = await makePendingSubmissions(db.pool, brand.brand.id, CHANGES);

  // the follower: position stored after each handled page, If-None-Match on every poll
  const seen: string[] = [];
  const failures: string[] = [];
  let unavailable = 0;
  let stored = 0;
  let etag: string | undefined;
  let following = true;
  stopFollowing = () => {
    following = false;
  };
  const follower = (async () => {
    while (following) {
      try {
        const res = await fetch(
          `http://127.0.0.1:${gatewayPort}/api/v1/events?after=${stored}&limit=20`,
          {
            headers: {
              Authorization: `Bearer ${brand.secret}`,
              ...(etag ? { 'If-None-Match': etag } : {}),
            },
          },
        );
        if (res.status === 200) {
          const page = (await res.json()) as { data: Array<{ id: string }>; next_after: number };
          seen.push(...page.data.map((e) => e.id));
          stored = page.next_after;
          etag = undefined; // a new position is a new query: nothing to match yet
          if (page.data.length === 0) etag = res.headers.get('etag') ?? undefined;
          if (page.data.length === 20) continue;
        } else if (res.status === 503) {
          // a backing service is down (killed): the documented answer to retry
          unavailable += 1;
        } else if (res.status !== 304) {
          failures.push(`${res.status} ${await res.text()}`);
        }
      } catch {
        // the gateway is down (killed): try again shortly
      }
      await sleep(100);
    }
  })();

  // business changes through records, as brandctl makes them, retried across its restart
  const changes = (async () => {
    for (const s of pending) {
      for (let attempt = 1; attempt < 200; attempt++) {
        try {
          await admin.records('approveSubmission', { submission_id: s.id });
          break;
        } catch (err) {
          // a change committed before the kill whose reply was lost: it is made
          if (err instanceof AppError && err.code !== 'service_unavailable') break;
          await sleep(100);
        }
      }
      await sleep(25);
    }
  })();

  const outboxCount = async () =>
    Number(
      (
        await db.pool.query<{ n: string }>(
          `select count(*) as n from records.outbox where brand_id = $1`,
          [brand.brand.id],
        )
      ).rows[0]!.n,
    );
  await waitFor(async () => (await outboxCount()) >= 20, { timeoutMs: 30_000 });
  await killAndRestart(records);
  admin.close();
  admin = createAdminClient(`127.0.0.1:${recordsPort}`);
  await waitFor(async () => (await outboxCount()) >= 50, { timeoutMs: 60_000 });
  await killAndRestart(webhooks);
  await waitFor(async () => (await outboxCount()) >= 80, { timeoutMs: 60_000 });
  await killAndRestart(gateway);
  await changes;

  const expected = (
    await db.pool.query<{ id: string }>(`select id from records.outbox where brand_id = $1`, [
      brand.brand.id,
    ])
  ).rows.map((r) => r.id);
  expect(expected.length).toBeGreaterThanOrEqual(CHANGES);
  await waitFor(() => seen.length >= expected.length, {
    timeoutMs: 120_000,
    what: `the follower to see ${expected.length} events (saw ${seen.length})`,
  });
  // a little longer: anything more would be a repeat
  await sleep(1_500);
  following = false;
  await follower;

  expect(failures).toEqual([]);
  // the kills were real: the follower met the services down
  expect(unavailable).toBeGreaterThan(0);
  expect(new Set(seen).size).toBe(seen.length);
  expect([...seen].sort()).toEqual([...expected].sort());
  // in the documented order: ascending feed position
  const byPosition = (
    await db.pool.query<{ id: string }>(
      `select id from webhooks.events where brand_id = $1 and feed_seq is not null order by feed_seq`,
      [brand.brand.id],
    )
  ).rows.map((r) => r.id);
  expect(seen).toEqual(byPosition);
});

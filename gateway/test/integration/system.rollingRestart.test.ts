// Issue 11, behaviour 1: a rolling restart under load. Two replicas of every process (records,
// plans, webhooks, gateway) serve steady REST reads, MCP tool calls through the official SDK
// client, campaign-plan preparations and business changes that become signed deliveries.
// Each replica in turn gets SIGTERM, must exit 0 (a graceful stop), and comes back on the
// same address. Nothing accepted may be lost (every accepted plan is stored and replays,
// every committed change reaches the receiver, verified) and no answer may be a 5xx other
// than 503 with Retry-After.
import type { RunningReceiver } from '@brand/example-receiver';
import {
  createAdminClient,
  createTestCa,
  createTestDatabase,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  freeRedisPrefixKeys,
  makeBrandWithKey,
  startRegisteredReceiver,
  testKafkaBrokers,
  testRedisUrl,
  uniqueConsumerGroup,
  uniqueRedisPrefix,
  uniqueTopic,
  type AdminClient,
  type TestCa,
  type TestDatabase,
  makePendingSubmissions,
} from '@brand/testkit';
import { startFleet, type Fleet, type Replica } from '../support/fleet';
import { PLANS_PATH } from '../support/plans';
import {
  Balancer,
  businessChanges,
  mcpCalls,
  newTrafficLog,
  planPreparations,
  restReads,
  type LoopContext,
} from '../support/steadyTraffic';

jest.setTimeout(300_000);

const CHANGES = 400;
let db: TestDatabase;
let ca: TestCa;
let topic: string;
let redisPrefix: string;
let fleet: Fleet;
let admin: AdminClient;
let receiver: RunningReceiver;

beforeAll(async () => {
  ca = createTestCa();
  topic = uniqueTopic('roll');
  await createTopic(topic);
  db = await createTestDatabase();
  redisPrefix = uniqueRedisPrefix();
  fleet = await startFleet({
    databaseUrl: db.url,
    redisUrl: testRedisUrl(),
    redisKeyPrefix: redisPrefix,
    topic,
    groupId: uniqueConsumerGroup('roll'),
    brokers: testKafkaBrokers().join(','),
    caFile: ca.caFile,
    // a balancer probing every 100 ms notices a stopping gateway well within 1.5 s
    gatewayEnv: { SHUTDOWN_DRAIN_MS: '1500', RATE_LIMIT_SCALE: '100' },
  });
  admin = createAdminClient(fleet.recordsTarget);
});

afterAll(async () => {
  admin?.close();
  await receiver?.close();
  await fleet?.stop();
  await db?.close();
  await freeRedisPrefixKeys(redisPrefix, testRedisUrl()).catch(() => undefined);
  await deleteTopic(topic).catch(() => undefined);
  ca?.remove();
});

/** SIGTERMs each replica in turn and starts it again; returns how each stop went. */
async function rollingRestart(replicas: Replica[], pauseMs: number): Promise<string[]> {
  const stops: string[] = [];
  for (const r of replicas) {
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const stopping = r.process;
    const code = await stopping.stop('SIGTERM', 30_000);
    // a non-zero exit names itself with its last lines, so a failure says what went wrong
    stops.push(
      code === 0 ? `${r.name}: 0` : `${r.name}: ${code}\n${stopping.logs().slice(-8).join('\n')}`,
    );
    await r.restart();
  }
  return stops;
}

it('loses nothing accepted and answers no 5xx but 503 with Retry-After while every process restarts', async () => {
  const brand = await makeBrandWithKey(admin, {
    tier: 'enterprise',
    permissions: ['campaigns:prepare'],
  });
  const pending = await makePendingSubmissions(db.pool, brand.brand.id, CHANGES);
  const webhooks = createWebhooksClient(fleet.webhooksTarget);
  try {
    ({ server: receiver } = await startRegisteredReceiver({
      client: webhooks,
      ca,
      brandId: brand.brand.id,
      events: ['submission.approved'],
      keepReceived: 10_000,
      actorEmail: brand.owner.email,
      label: 'rolling restart receiver',
    }));
  } finally {
    webhooks.close();
  }

  const log = newTrafficLog();
  let running = true;
  const balancer = new Balancer(() =>
    fleet.gateways.map((g) => ({
      url: `http://127.0.0.1:${g.process.port}`,
      readyUrl: `http://127.0.0.1:${String(g.process.listening.ops_port)}/readyz`,
    })),
  );
  const ctx: LoopContext = { log, balancer, running: () => running, paceMs: 25 };
  const traffic = Promise.all([
    restReads(ctx, brand.secret),
    restReads(ctx, brand.secret),
    mcpCalls(ctx, brand.secret),
    planPreparations(ctx, brand.secret, { max: 180, everyMs: 150 }),
    businessChanges(
      ctx,
      admin,
      pending.map((s) => s.id),
      100,
    ),
  ]);

  // Roll every Deployment in turn, the way `kubectl rollout restart` does, one pod at a time.
  const stops: string[] = [];
  try {
    for (const kind of ['records', 'plans', 'webhooks', 'gateways'] as const)
      stops.push(...(await rollingRestart(fleet[kind], 1_500)));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  } finally {
    running = false;
    await traffic;
    await balancer.close();
  }

  expect(log.violations.slice(0, 20)).toEqual([]);
  expect(stops).toEqual(
    ['records', 'plans', 'webhooks', 'gateway'].flatMap((k) => [`${k}-0: 0`, `${k}-1: 0`]),
  );
  // traffic really flowed through the whole roll
  expect(log.counts['REST 200'] ?? 0).toBeGreaterThan(100);
  expect(log.counts['MCP ok'] ?? 0).toBeGreaterThan(20);
  expect(log.plans.length).toBeGreaterThan(20);
  expect(log.eventIds.length).toBeGreaterThan(50);

  // Every accepted plan is stored, once, and a retry of its request replays it.
  const stored = await db.pool.query<{ id: string }>(
    'select id from plans.plans where id = any($1::text[])',
    [log.plans.map((p) => p.id)],
  );
  expect(stored.rows.map((r) => r.id).sort()).toEqual(log.plans.map((p) => p.id).sort());
  const gateway = `http://127.0.0.1:${fleet.gateways[0]!.process.port}`;
  for (const plan of log.plans.slice(0, 20)) {
    const replay = await fetch(`${gateway}${PLANS_PATH}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${brand.secret}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(plan.body),
    });
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { id: string }).id).toBe(plan.id);
  }

  // Every committed change reaches the receiver, signed; none is lost in the roll.
  const delivered = (): Set<string> =>
    new Set(receiver.received.filter((d) => d.verdict.ok && d.event).map((d) => d.event!.id));
  await receiver.waitFor(() => log.eventIds.every((id) => delivered().has(id)), 120_000);
  expect(receiver.received.filter((d) => !d.verdict.ok)).toEqual([]);
  expect(log.eventIds.filter((id) => !delivered().has(id))).toEqual([]);
  console.log(
    `rolling restart: ${JSON.stringify(log.counts)}; ${log.plans.length} plans, ${log.eventIds.length} changes, ${receiver.received.length} deliveries`,
  );
});

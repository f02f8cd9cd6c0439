// Keys, secrets and signatures never appear in any process's logs. Every process runs at
// LOG_LEVEL=debug while the test drives the paths most likely to leak one: good and bad API keys in
// every place a client might put them, key creation, internal tokens right and wrong, receiver
// secrets, signed deliveries (a first attempt refused, then a retry), and services refusing to
// start on a weak or published secret. Then every line every process wrote is searched for each
// secret value.
import type { RunningReceiver } from '@brand/example-receiver';
import {
  createAdminClient,
  createTestCa,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  makeBrandWithKey,
  planBody,
  startGateway,
  startRecords,
  startRegisteredReceiver,
  startStack,
  TEST_ADMIN_TOKEN,
  TEST_CURSOR_SECRET,
  TEST_INTERNAL_TOKEN,
  TEST_WEBHOOK_SECRET_KEY,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  type ServiceProcess,
  type Stack,
  type TestCa,
  makePendingSubmissions,
} from '@brand/testkit';
import { PLANS_PATH } from '../support/plans';

const DEBUG = { LOG_LEVEL: 'debug' };
let stack: Stack;
let ca: TestCa;
let topic: string;
let receiver: RunningReceiver | undefined;
/** Processes started outside the stack (those refusing to start), for their logs. */
const refused: ServiceProcess[] = [];
const refusedLogs: string[] = [];

beforeAll(async () => {
  ca = createTestCa();
  topic = uniqueTopic('logs');
  await createTopic(topic);
  stack = await startStack({
    plans: true,
    recordsEnv: {
      ...DEBUG,
      KAFKA_BROKERS: testKafkaBrokers().join(','),
      BUSINESS_EVENTS_TOPIC: topic,
    },
    plansEnv: DEBUG,
    gatewayEnv: DEBUG,
    webhooks: { topic, groupId: uniqueConsumerGroup('logs'), caFile: ca.caFile, env: DEBUG },
  });
});

afterAll(async () => {
  await receiver?.close();
  await Promise.all(refused.map((p) => p.stop()));
  await stack?.close();
  await deleteTopic(topic).catch(() => undefined);
  ca?.remove();
});

/** The last character changed: what a typo or a guess looks like. */
const mistyped = (secret: string): string =>
  secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');

async function send(path: string, init: RequestInit & { headers?: Record<string, string> }) {
  const res = await fetch(`${stack.gateway.url}${path}`, init);
  await res.arrayBuffer();
  return res.status;
}

/** Starts a service expected to refuse its configuration; resolves with its log lines. */
async function refusedStart(start: () => Promise<ServiceProcess>): Promise<void> {
  try {
    refused.push(await start());
    throw new Error('the service started with a secret it should have refused');
  } catch (err) {
    const message = (err as Error).message;
    if (message.startsWith('the service started')) throw err;
    refusedLogs.push(message);
  }
}

it('no process logs an API key, a token, a secret or a signature, on any path', async () => {
  const brand = await makeBrandWithKey(stack.admin, {
    tier: 'enterprise',
    permissions: ['campaigns:prepare'],
  });
  const key = brand.secret;
  const secrets: Record<string, string> = {
    'API key': key,
    'mistyped API key': mistyped(key),
    'internal token': TEST_INTERNAL_TOKEN,
    'admin token': TEST_ADMIN_TOKEN,
    'mistyped admin token': mistyped(TEST_ADMIN_TOKEN),
    'cursor secret': TEST_CURSOR_SECRET,
    'webhook secret key': TEST_WEBHOOK_SECRET_KEY,
  };

  // API keys: valid, mistyped, in a Basic header, in the query, twice, and inside MCP input.
  const auth = { Authorization: `Bearer ${key}` };
  expect(await send('/api/v1/submissions', { headers: auth })).toBe(200);
  expect(
    await send('/api/v1/submissions', { headers: { Authorization: `Bearer ${mistyped(key)}` } }),
  ).toBe(401);
  expect(
    await send('/api/v1/submissions', {
      headers: { Authorization: `Basic ${Buffer.from(`x:${key}`).toString('base64')}` },
    }),
  ).toBe(401);
  expect(await send(`/api/v1/submissions?api_key=${key}`, { headers: auth })).toBe(400);
  expect(await send(`/api/v1/submissions?cursor=${key}`, { headers: auth })).toBe(400);
  // ...and in the path, where a client may paste it (the access log wrote paths whole: a review,
  // 2026-11-29), with a key and without
  expect(await send(`/api/v1/submissions/${key}`, { headers: auth })).toBeGreaterThanOrEqual(400);
  expect(await send(`/api/v1/submissions/${key}`, {})).toBeGreaterThanOrEqual(400);
  const mcp = (body: unknown): Promise<number> =>
    send('/api/mcp', {
      method: 'POST',
      headers: {
        ...auth,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify(body),
    });
  expect(
    await mcp({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_submissions', arguments: { cursor: key, api_key: key } },
    }),
  ).toBe(200);
  expect(
    await send(PLANS_PATH, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(planBody({ notes: `do not log ${key}` })),
    }),
  ).toBe(201);

  // Keys created and refused over the admin RPCs; a call with a mistyped admin token.
  const second = await stack.admin.createKey({
    brandId: brand.brand.id,
    actorEmail: brand.owner.email,
    name: 'Second',
  });
  secrets['second API key'] = second.secret;
  const wrongAdmin = createAdminClient(stack.records.address, mistyped(TEST_ADMIN_TOKEN));
  await expect(wrongAdmin.listBrands()).rejects.toMatchObject({ code: 'unauthenticated' });
  wrongAdmin.close();

  // A receiver: its signing secret, a Test delivery, and a business change whose first
  // attempt the receiver refuses with 500, so a retry is signed again.
  const webhooks = createWebhooksClient(stack.webhooks!.address);
  try {
    const registered = await startRegisteredReceiver({
      client: webhooks,
      ca,
      brandId: brand.brand.id,
      events: ['submission.approved'],
      respondWith: (n) => (n === 2 ? 500 : undefined),
      actorEmail: brand.owner.email,
      label: 'logs test',
    });
    receiver = registered.server;
    secrets['receiver signing secret'] = registered.secret;
    await webhooks.call('testReceiver', {
      receiver_id: registered.receiver.id,
      event_type: 0,
      with_new_secret: false,
    });
    await receiver.waitFor((r) => r.length >= 1, 30_000);
    const [pending] = await makePendingSubmissions(stack.db.pool, brand.brand.id, 1);
    await stack.admin.records('approveSubmission', { submission_id: pending!.id });
    await receiver.waitFor((r) => r.some((d) => d.status === 200 && d.n > 2), 60_000);
  } finally {
    webhooks.close();
  }
  const signatures = receiver.received.map((d) => String(d.headers['x-service-signature']));
  expect(signatures.length).toBeGreaterThanOrEqual(3);
  signatures.forEach((s, i) => (secrets[`signature ${i + 1}`] = s));

  // Services that refuse their secrets at startup must not print them while refusing.
  const weak = 'weak-secret-value-7Q';
  secrets['refused weak token'] = weak;
  await refusedStart(() =>
    startGateway({
      recordsAddr: stack.records.address,
      redisKeyPrefix: stack.redisKeyPrefix,
      env: { ...DEBUG, INTERNAL_TOKEN: weak },
    }),
  );
  await refusedStart(() =>
    startRecords({
      databaseUrl: stack.db.url,
      redisKeyPrefix: stack.redisKeyPrefix,
      env: { ...DEBUG, NODE_ENV: 'production', CURSOR_SECRET: TEST_CURSOR_SECRET },
    }),
  );
  expect(refusedLogs).toHaveLength(2);

  // Let the last lines (access log, outcome of the retry) be written, then search them all.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const processes: ServiceProcess[] = [stack.records, stack.plans!, stack.webhooks!, stack.gateway];
  const lines = [...processes.flatMap((p) => p.logs()), ...refusedLogs];
  // every process really logged, at debug level, and the refusals name what they refused
  for (const p of processes) expect(p.logs().length).toBeGreaterThan(0);
  expect(lines.some((l) => l.includes('"level":"debug"'))).toBe(true);
  expect(refusedLogs[0]).toContain('INTERNAL_TOKEN');
  expect(refusedLogs[1]).toContain('CURSOR_SECRET');
  const logs = lines.join('\n');
  const leaks = Object.entries(secrets)
    .filter(([, value]) => value.length >= 16 && logs.includes(value))
    .map(([name]) => name);
  expect(leaks).toEqual([]);
  // the key's random part alone (after its public prefix) is a secret too
  const randomPart = key.slice(key.lastIndexOf('_') + 1);
  expect(randomPart.length).toBeGreaterThanOrEqual(20);
  expect(logs.includes(randomPart)).toBe(false);
});

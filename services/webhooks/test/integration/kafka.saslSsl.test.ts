// Issue 43: Kafka over TLS with SASL, against a real broker with a SASL_SSL listener (this
// test's own, scripts/kafka.sh KAFKA_SASL_SSL_PORT: a test CA, SCRAM users made at format).
// The outbox relay publishes and the consumer delivers through it end to end. A wrong
// password and an untrusted CA each show as their own readiness state and metric, with the
// processes up and the events waiting; restarted with the right settings, every waiting
// event reaches the receiver.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunningReceiver } from '@brand/example-receiver';
import {
  createAdminClient,
  createTestCa,
  createTopic,
  makePendingSubmissions,
  scrapeMetric,
  startOwnKafka,
  startRecords,
  startWebhooks,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type OwnKafka,
  type SaslSslListener,
  type ServiceProcess,
  type Stack,
  type TestCa,
} from '@brand/testkit';
import { startSaslSystem } from './saslSystem';

let kafka: OwnKafka;
let sasl: SaslSslListener;
let stack: Stack;
let receiverCa: TestCa;
let strangerCa: TestCa;
let secrets: string;
let topic: string;
let groupId: string;
let receiver: RunningReceiver;
let brandId: string;

/** The security settings of both processes, with `over` changed. */
function kafkaEnv(over: Record<string, string> = {}): Record<string, string> {
  return {
    KAFKA_BROKERS: sasl.brokers.join(','),
    KAFKA_SSL: 'true',
    KAFKA_SSL_CA_FILE: sasl.caFile,
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: sasl.username,
    KAFKA_SASL_PASSWORD_FILE: path.join(secrets, 'right-password'),
    BUSINESS_EVENTS_TOPIC: topic,
    ...over,
  };
}

beforeAll(async () => {
  kafka = await startOwnKafka({ saslSsl: true });
  sasl = kafka.saslSsl!;
  receiverCa = createTestCa();
  strangerCa = createTestCa();
  secrets = mkdtempSync(path.join(tmpdir(), 'kafka-secrets-'));
  writeFileSync(path.join(secrets, 'right-password'), `${sasl.password}\n`);
  writeFileSync(path.join(secrets, 'wrong-password'), 'not-the-password\n');
  topic = uniqueTopic('sasl');
  groupId = uniqueConsumerGroup('sasl');
  // made over the plaintext listener, so the first test does not wait for the consumer's
  await createTopic(topic, 3, kafka.brokers);
  ({ stack, receiver, brandId } = await startSaslSystem({
    sasl,
    topic,
    groupId,
    receiverCa,
    env: kafkaEnv(),
    label: 'SASL_SSL receiver',
  }));
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
  await kafka?.remove();
  receiverCa?.remove();
  strangerCa?.remove();
  if (secrets) rmSync(secrets, { recursive: true, force: true });
}, 60_000);

async function readyz(opsUrl: string): Promise<{ kafka?: string }> {
  const res = await fetch(`${opsUrl}/readyz`);
  return ((await res.json()) as { checks: { kafka?: string } }).checks;
}

/** Waits until the process's readiness shows `kafka` as `state` (a prefix for tls states). */
async function kafkaStateBecomes(proc: { opsUrl: string }, state: string): Promise<string> {
  return waitFor(
    async () => {
      const kafka = (await readyz(proc.opsUrl)).kafka;
      return kafka?.startsWith(state) ? kafka : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, what: `kafka: ${state}` },
  );
}

/** Approves one new pending submission through `recordsAddress`; returns its event id. */
async function approveOne(recordsAddress: string): Promise<string> {
  const admin = createAdminClient(recordsAddress);
  try {
    const [pending] = await makePendingSubmissions(stack.db.pool, brandId, 1);
    const change = await admin.records('approveSubmission', { submission_id: pending!.id });
    return change.event_id;
  } finally {
    admin.close();
  }
}

const receivedIds = (): string[] =>
  receiver.received.map((r) => (JSON.parse(r.rawBody.toString('utf8')) as { id: string }).id);

/** Records and webhooks with these Kafka settings, in place of whatever ran before. */
async function restartBoth(
  current: { records: ServiceProcess; webhooks: ServiceProcess },
  env: Record<string, string>,
): Promise<{
  records: ServiceProcess & { opsUrl: string; address: string };
  webhooks: ServiceProcess & { opsUrl: string };
}> {
  await Promise.all([current.records.stop(), current.webhooks.stop()]);
  const [records, webhooks] = await Promise.all([
    startRecords({ databaseUrl: stack.db.url, redisKeyPrefix: stack.redisKeyPrefix, env }),
    startWebhooks({
      databaseUrl: stack.db.url,
      topic,
      groupId,
      caFile: receiverCa.caFile,
      brokers: sasl.brokers,
      env: { ...env, KAFKA_ENSURE_TOPIC: 'false' },
    }),
  ]);
  return { records, webhooks };
}

/** Neither process exited on the refusal (no crash loop), and each said it in one log line. */
async function expectUpAndSaying(
  procs: { records: ServiceProcess; webhooks: ServiceProcess },
  line: string,
): Promise<void> {
  for (const proc of [procs.records, procs.webhooks]) {
    const exited = await Promise.race([
      proc.exited.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 250)),
    ]);
    expect(exited).toBe(false);
    expect(proc.logs().filter((l) => l.includes(line))).toHaveLength(1);
  }
}

it('publishes and delivers through SASL_SSL (SCRAM-SHA-512, a private CA) end to end', async () => {
  expect(await kafkaStateBecomes(stack.records, 'ok')).toBe('ok');
  expect(await kafkaStateBecomes(stack.webhooks!, 'ok')).toBe('ok');
  const eventId = await approveOne(stack.records.address);
  await receiver.waitFor((r) => r.length >= 1, 30_000);
  expect(receivedIds()).toEqual([eventId]);
  expect(receiver.received[0]!.verdict.ok).toBe(true);
}, 90_000);

it('a wrong password and an untrusted CA each say so in readiness; fixed, every waiting event arrives', async () => {
  let running: {
    records: ServiceProcess & { opsUrl: string; address: string };
    webhooks: ServiceProcess & { opsUrl: string };
  } = {
    records: stack.records,
    webhooks: stack.webhooks!,
  };
  const waiting: string[] = [];

  // a wrong password: "authentication failed", in readiness and on /metrics, processes up
  running = await restartBoth(
    running,
    kafkaEnv({ KAFKA_SASL_PASSWORD_FILE: path.join(secrets, 'wrong-password') }),
  );
  expect(await kafkaStateBecomes(running.records, 'authentication failed')).toBe(
    'authentication failed',
  );
  expect(await kafkaStateBecomes(running.webhooks, 'authentication failed')).toBe(
    'authentication failed',
  );
  for (const proc of [running.records, running.webhooks])
    expect(
      await scrapeMetric(proc.opsUrl, /^kafka_client_problem\{.*problem="authentication_failed"/),
    ).toBe(1);
  waiting.push(
    await approveOne(running.records.address),
    await approveOne(running.records.address),
  );
  await waitFor(
    async () => (await scrapeMetric(running.records.opsUrl, /^outbox_unpublished_events /)) >= 2,
    { timeoutMs: 10_000, what: 'two events waiting in the outbox' },
  );

  // an untrusted CA (another test CA): a tls state naming the refusal
  running = await restartBoth(running, kafkaEnv({ KAFKA_SSL_CA_FILE: strangerCa.caFile }));
  const recordsState = await kafkaStateBecomes(
    running.records,
    'tls: server certificate not trusted',
  );
  expect(recordsState).toMatch(/^tls: server certificate not trusted \([A-Z_]+\)$/);
  await kafkaStateBecomes(running.webhooks, 'tls: server certificate not trusted');
  expect(await scrapeMetric(running.records.opsUrl, /^kafka_client_problem\{.*problem="tls"/)).toBe(
    1,
  );
  waiting.push(await approveOne(running.records.address));

  await expectUpAndSaying(running, 'Kafka: tls: server certificate not trusted');
  expect(receivedIds()).toHaveLength(1);

  // fixed: every waiting event arrives, none lost
  running = await restartBoth(running, kafkaEnv());
  await receiver.waitFor((r) => r.length >= 4, 60_000);
  expect(new Set(receivedIds())).toEqual(new Set([receivedIds()[0]!, ...waiting]));
  expect(await kafkaStateBecomes(running.records, 'ok')).toBe('ok');
  expect(await kafkaStateBecomes(running.webhooks, 'ok')).toBe('ok');
}, 240_000);

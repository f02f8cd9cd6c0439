// Issue 60: a Kafka SASL/SCRAM password rotated while the system runs. Records' relay and the
// webhooks consumer read KAFKA_SASL_PASSWORD_FILE; an operator changes the user's password on
// the broker and the file (renamed into place, as kubelet swaps a mounted Secret), the broker
// restarts so that every connection is new, and events keep flowing: every change approved
// before, during and after reaches the receiver, with no restart of either process.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { RunningReceiver } from '@brand/example-receiver';
import {
  createAdminClient,
  createTestCa,
  createTopic,
  scrapeMetric,
  startChangeFlow,
  startOwnKafka,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type OwnKafka,
  type SaslSslListener,
  type Stack,
  type TestCa,
} from '@brand/testkit';
import { startSaslSystem } from './saslSystem';

let kafka: OwnKafka;
let sasl: SaslSslListener;
let stack: Stack;
let receiverCa: TestCa;
let secrets: string;
let passwordFile: string;
let receiver: RunningReceiver;
let brandId: string;

/** Writes the password file as kubelet updates a mounted Secret: a new file renamed into place. */
function writePasswordFile(password: string): void {
  const next = `${passwordFile}.next`;
  writeFileSync(next, `${password}\n`);
  renameSync(next, passwordFile);
}

beforeAll(async () => {
  kafka = await startOwnKafka({ saslSsl: true });
  sasl = kafka.saslSsl!;
  receiverCa = createTestCa();
  secrets = mkdtempSync(path.join(tmpdir(), 'kafka-rotation-'));
  passwordFile = path.join(secrets, 'KAFKA_SASL_PASSWORD');
  writePasswordFile(sasl.password);
  const topic = uniqueTopic('rotation');
  const groupId = uniqueConsumerGroup('rotation');
  await createTopic(topic, 3, kafka.brokers);
  const env = {
    KAFKA_BROKERS: sasl.brokers.join(','),
    KAFKA_SSL: 'true',
    KAFKA_SSL_CA_FILE: sasl.caFile,
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: sasl.username,
    KAFKA_SASL_PASSWORD_FILE: passwordFile,
    BUSINESS_EVENTS_TOPIC: topic,
  };
  ({ stack, receiver, brandId } = await startSaslSystem({
    sasl,
    topic,
    groupId,
    receiverCa,
    env,
    label: 'rotation receiver',
  }));
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
  await kafka?.remove();
  receiverCa?.remove();
  if (secrets) rmSync(secrets, { recursive: true, force: true });
}, 60_000);

/** Whether a fresh client authenticates over SASL_SSL with `password`. */
async function brokerAccepts(password: string): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'rotation-check',
    brokers: sasl.brokers,
    ssl: { ca: [readFileSync(sasl.caFile, 'utf8')] },
    sasl: { mechanism: 'scram-sha-512', username: sasl.username, password },
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

it('rotates the SCRAM password on the broker and in the file while events keep flowing', async () => {
  const admin = createAdminClient(stack.records.address);
  // a change every 250 ms for the whole test; a refused one (Kafka plays no part in it) fails
  const flow = startChangeFlow({ admin, pool: stack.db.pool, brandId, everyMs: 250 });
  const deliveredAll = (ids: readonly string[], timeoutMs: number) =>
    receiver.waitFor((got) => {
      const seen = new Set(
        got.map((r) => (JSON.parse(r.rawBody.toString('utf8')) as { id: string }).id),
      );
      return ids.every((id) => seen.has(id));
    }, timeoutMs);
  const pids = [stack.records.pid, stack.webhooks!.pid];
  let accepted: string[] = [];

  try {
    await waitFor(() => flow.count() >= 4, { what: 'changes flowing' });
    await deliveredAll([...flow.accepted], 30_000);

    // the rotation: the broker first, then the file at once (a Secret's new version)
    const newPassword = 'brand-rotated-secret-2';
    await kafka.saslSsl!.rotateScramPassword(newPassword);
    writePasswordFile(newPassword);
    expect(await brokerAccepts(sasl.password)).toBe(false);
    expect(await brokerAccepts(newPassword)).toBe(true);

    // every connection made again: the broker restarts, both processes reconnect with the file
    await kafka.kill();
    await kafka.start();
    const afterRestart = flow.count();
    await waitFor(() => flow.count() >= afterRestart + 8, {
      timeoutMs: 30_000,
      what: 'changes after the broker restart',
    });
    accepted = await flow.stop();
    await deliveredAll(accepted, 60_000);
  } finally {
    await flow.stop().catch(() => undefined);
    admin.close();
  }

  // nothing lost, the same processes, no credential refused at the end
  const delivered = new Set(
    receiver.received.map((r) => (JSON.parse(r.rawBody.toString('utf8')) as { id: string }).id),
  );
  expect(accepted.filter((id) => !delivered.has(id))).toEqual([]);
  expect([stack.records.pid, stack.webhooks!.pid]).toEqual(pids);
  for (const proc of [stack.records, stack.webhooks!]) {
    expect(
      await scrapeMetric(proc.opsUrl, /^kafka_client_problem\{.*problem="authentication_failed"/),
    ).toBe(0);
  }
}, 240_000);

// The Kafka broker S6 needs, settled before any work: `npm run bench` starts what it needs,
// as `npm run up` and `npm test` do. The broker of BENCH_KAFKA_BROKERS / KAFKA_BROKERS (default
// 127.0.0.1:9092) is used when it answers. When that is one local address that does not answer,
// a broker is started there (controller on the next port) with scripts/kafka.sh in a data dir
// of the bench's own, and stopped at the end (only that one: kafka.sh stops the pid it
// recorded there). Remote brokers that do not answer, or a broker that cannot be started (no
// java or mvn), refuse the run at once, in one line, instead of failing at S6 after minutes.
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { onCleanup } from './cleanup.mjs';
import { runCommand } from './processes.mjs';
import { REPO_ROOT, say } from './settings.mjs';

const NAMED = process.env.BENCH_KAFKA_BROKERS ?? process.env.KAFKA_BROKERS;
export const BROKERS = (NAMED ?? '127.0.0.1:9092').split(',');
const KAFKA_SH = path.join(REPO_ROOT, 'scripts/kafka.sh');
const DATA_DIR = path.join(REPO_ROOT, '.local/kafka-bench');

/** A refusal to run, printed as its one line. */
export class BenchRefusal extends Error {}

/** Whether Kafka itself answers there (a TCP connect alone can be accepted by a proxy). */
async function answers(brokers) {
  const admin = new Kafka({
    clientId: 'bench-probe',
    brokers,
    connectionTimeout: 2_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    await admin.describeCluster();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Makes sure a broker answers (starting the bench's own when allowed); throws BenchRefusal. */
export async function ensureKafka() {
  const address = BROKERS[0];
  if (await answers(BROKERS)) return;
  const i = address.lastIndexOf(':');
  const [host, port] = [address.slice(0, i), Number(address.slice(i + 1))];
  if (BROKERS.length > 1 || !['127.0.0.1', 'localhost'].includes(host) || !(port > 0))
    throw new BenchRefusal(
      `Kafka at ${BROKERS.join(',')} does not answer (S6 needs it): start it, or unset BENCH_KAFKA_BROKERS/KAFKA_BROKERS to let the bench start its own on 127.0.0.1:9092`,
    );
  say(`no Kafka broker on ${address}: starting one (scripts/kafka.sh, data in ${DATA_DIR})`);
  const env = {
    ...process.env,
    KAFKA_DATA_DIR: DATA_DIR,
    KAFKA_HOST: '127.0.0.1',
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(port + 1),
  };
  onCleanup('stop the Kafka broker this run started', async () => {
    await runCommand('bash', [KAFKA_SH, 'stop'], { env, stdio: 'ignore' });
    say(`stopped the Kafka broker this run started on ${address}`);
  });
  try {
    await runCommand('bash', [KAFKA_SH, 'ensure'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (err) {
    throw new BenchRefusal(
      `no Kafka broker on ${address} and scripts/kafka.sh could not start one (it needs java 17+ and mvn): ${err.message}`,
    );
  }
}

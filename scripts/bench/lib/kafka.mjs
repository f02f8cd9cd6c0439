// The Kafka broker S6 needs, settled before any work: `npm run bench` starts what it needs,
// as `npm run up` and `npm test` do. The broker of BENCH_KAFKA_BROKERS / KAFKA_BROKERS (default
// 127.0.0.1:9092) is used when it answers. When the default address does not answer, a broker
// is started there with scripts/kafka.sh in a data dir of the bench's own and stopped at the
// end (only that one: kafka.sh stops the pid it recorded there). A named broker that does not
// answer, or a broker that cannot be started (no java or mvn), refuses the run at once, in
// one line, instead of failing at S6 after minutes of work.
import { createConnection } from 'node:net';
import path from 'node:path';
import { onCleanup } from './cleanup.mjs';
import { runCommand } from './processes.mjs';
import { REPO_ROOT, say } from './settings.mjs';

const NAMED = process.env.BENCH_KAFKA_BROKERS ?? process.env.KAFKA_BROKERS;
export const BROKERS = (NAMED ?? '127.0.0.1:9092').split(',');
const KAFKA_SH = path.join(REPO_ROOT, 'scripts/kafka.sh');
const DATA_DIR = path.join(REPO_ROOT, '.local/kafka-bench');

/** A refusal to run, printed as its one line. */
export class BenchRefusal extends Error {}

function answers(address) {
  const i = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = createConnection({
      host: address.slice(0, i),
      port: Number(address.slice(i + 1)),
    });
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Makes sure a broker answers (starting the bench's own when allowed); throws BenchRefusal. */
export async function ensureKafka() {
  if (await answers(BROKERS[0])) return;
  if (NAMED !== undefined)
    throw new BenchRefusal(
      `Kafka at ${NAMED} does not answer (S6 needs it): start it, or unset BENCH_KAFKA_BROKERS/KAFKA_BROKERS to let the bench start its own`,
    );
  say(`no Kafka broker on ${BROKERS[0]}: starting one (scripts/kafka.sh, data in ${DATA_DIR})`);
  const env = { ...process.env, KAFKA_DATA_DIR: DATA_DIR };
  onCleanup('stop the Kafka broker this run started', () =>
    runCommand('bash', [KAFKA_SH, 'stop'], { env, stdio: 'ignore' }),
  );
  try {
    await runCommand('bash', [KAFKA_SH, 'ensure'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (err) {
    throw new BenchRefusal(
      `no Kafka broker on ${BROKERS[0]} and scripts/kafka.sh could not start one (it needs java 17+ and mvn): ${err.message}`,
    );
  }
}

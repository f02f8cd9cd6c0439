import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

/**
 * A Kafka broker of this test alone (HOUSE_RULES: a test that restarts a broker never
 * touches the shared one), on random 19xxx ports with its own data directory, started and
 * stopped with scripts/kafka.sh. Its data survives stop/start, like a real restart.
 */
export interface OwnBroker {
  brokers: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and deletes its data directory. */
  remove(): Promise<void>;
}

export function ownBroker(): OwnBroker {
  const port = 19_100 + randomInt(400) * 2;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'records-kafka-'));
  const env = {
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(port + 1),
    KAFKA_DATA_DIR: dataDir,
  };
  const script = (command: 'ensure' | 'stop'): Promise<void> =>
    new Promise((resolve, reject) => {
      execFile(
        'bash',
        [path.join(REPO_ROOT, 'scripts/kafka.sh'), command],
        { env, timeout: 150_000 },
        (err, _stdout, stderr) =>
          err ? reject(new Error(`kafka.sh ${command} failed: ${stderr}`)) : resolve(),
      );
    });
  return {
    brokers: `127.0.0.1:${port}`,
    start: () => script('ensure'),
    stop: () => script('stop'),
    async remove() {
      await script('stop').catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

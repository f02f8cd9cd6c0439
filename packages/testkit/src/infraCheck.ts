import net from 'node:net';
import { Redis } from 'ioredis';
import { withAdminClient } from './pgAdmin';
import { adminDatabaseUrl, testRedisUrl } from './testEnv';

const START_POSTGRES = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';
const START_REDIS =
  'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log';

/** Fails fast, naming the command that starts the missing server, when either is down. */
export async function checkInfrastructure(): Promise<void> {
  const problems: string[] = [];
  try {
    await withAdminClient((c) => c.query('select 1'));
  } catch (err) {
    problems.push(
      `PostgreSQL at ${redactUrl(adminDatabaseUrl())} does not answer (${errorText(err)}).\n` +
        `  Start it with: ${START_POSTGRES}`,
    );
  }
  const redis = new Redis(testRedisUrl(), {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    problems.push(
      `Redis at ${testRedisUrl()} does not answer (${errorText(err)}).\n  Start it with: ${START_REDIS}`,
    );
  } finally {
    redis.disconnect();
  }
  if (problems.length > 0) {
    throw new Error(`Integration tests need PostgreSQL and Redis:\n${problems.join('\n')}`);
  }
}

/**
 * Says, without failing the run, when no broker answers at the tests' shared address (KAFKA_BROKERS,
 * else 127.0.0.1:9092): the files that go through Kafka would each fail with ECONNREFUSED deep in
 * a test, while the rest need no broker. `npm test` and `npm run test:faults` start one; jest
 * alone does not.
 */
export async function warnWithoutKafka(): Promise<void> {
  const first = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')[0]!;
  const at = first.lastIndexOf(':');
  const answers = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: first.slice(0, at), port: Number(first.slice(at + 1)) });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
  if (!answers) {
    process.stderr.write(
      `\nwarning: no Kafka broker answers on ${first}; the tests that use Kafka will fail.\n` +
        `  Start the tests' broker with: KAFKA_DATA_DIR=.local/kafka-test scripts/kafka.sh ensure\n\n`,
    );
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

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

function errorText(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

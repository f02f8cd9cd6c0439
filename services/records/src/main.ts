// Telemetry first: it instruments libraries as they are loaded (no-op without OTLP config).
import '@brand/shared/telemetry/register';
import { callerTokensOf } from '@brand/shared/config';
import { createPool } from '@brand/shared/db';
import { bindServer, setAllHealth, shutdownServer } from '@brand/shared/grpc';
import { createLogger } from '@brand/shared/logger';
import { createMetricsRegistry, GrpcServerMetrics, startOpsServer } from '@brand/shared/metrics';
import { stopTelemetry } from '@brand/shared/telemetry';
import { closeRedis, createRedisClient } from '@brand/shared/redis';
import { exitOnStartupFailure, onShutdown } from '@brand/shared/shutdown';
import { redisRevocationNotifier } from './access/revocations';
import { loadRecordsConfig } from './config';
import { watchDatabaseHealth } from './db/healthWatch';
import { migrate, SCHEMA } from './db/migrations';
import { createServer, SERVICE_NAMES } from './server';

/** Composition root: the only place that reads process.env and listens. */
async function main(): Promise<void> {
  // A bad variable throws a ConfigError naming it; main().catch logs it and exits 1.
  const config = loadRecordsConfig(process.env);
  const log = createLogger({ service: 'records', level: config.LOG_LEVEL });

  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: SCHEMA,
    max: config.DATABASE_POOL_MAX,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    applicationName: 'records',
    log,
  });
  if (config.MIGRATE_ON_START) await migrate(pool, log);

  const redis = createRedisClient({
    url: config.REDIS_URL,
    name: 'records',
    log,
    queueWhileOffline: false,
    commandTimeoutMs: 1_000,
  });
  const registry = createMetricsRegistry();
  const { server, health } = createServer({
    pool,
    log,
    revocations: redisRevocationNotifier(redis, config.REDIS_KEY_PREFIX, log),
    callerTokens: callerTokensOf(config),
    metrics: new GrpcServerMetrics(registry),
    cursorSecret: config.CURSOR_SECRET,
    cursorSecretsPrevious: config.CURSOR_SECRETS_PREVIOUS,
  });
  const port = await bindServer(server, `${config.GRPC_HOST}:${config.GRPC_PORT}`);
  const stopWatching = watchDatabaseHealth(
    { pool, log, intervalMs: config.HEALTH_PROBE_INTERVAL_MS },
    (ok) => setAllHealth(health, SERVICE_NAMES, ok ? 'SERVING' : 'NOT_SERVING'),
  );
  const ops = await startOpsServer({
    host: config.METRICS_HOST,
    port: config.METRICS_PORT,
    registry,
  });
  log.info({ port, host: config.GRPC_HOST, ops_port: ops.port }, 'listening');

  onShutdown(log, config.SHUTDOWN_GRACE_MS, [
    {
      name: 'report NOT_SERVING so balancers stop sending calls',
      run: () => {
        stopWatching();
        setAllHealth(health, SERVICE_NAMES, 'NOT_SERVING');
      },
    },
    {
      name: 'finish in-flight calls',
      run: () => shutdownServer(server, config.SHUTDOWN_GRACE_MS - 1_000),
    },
    { name: 'close the operations listener', run: () => ops.close() },
    { name: 'close redis', run: () => closeRedis(redis) },
    { name: 'close database pool', run: () => pool.end() },
    { name: 'flush traces', run: stopTelemetry },
  ]);
}

main().catch((err: unknown) =>
  exitOnStartupFailure(createLogger({ service: 'records', level: 'info' }), err),
);

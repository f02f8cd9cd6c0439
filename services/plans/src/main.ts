// Telemetry first: it instruments libraries as they are loaded (no-op without OTLP config).
import '@brand/shared/telemetry/register';
import { callerTokensOf } from '@brand/shared/config';
import { createServicePool, watchDatabaseHealth } from '@brand/shared/db';
import { bindServer, setAllHealth, shutdownServer } from '@brand/shared/grpc';
import { createLogger } from '@brand/shared/logger';
import { createMetricsRegistry, GrpcServerMetrics, startOpsServer } from '@brand/shared/metrics';
import { stopTelemetry } from '@brand/shared/telemetry';
import { exitOnStartupFailure, onShutdown } from '@brand/shared/shutdown';
import { loadPlansConfig } from './config';

import { migrate, SCHEMA } from './db/migrations';
import { planMetrics } from './plans/planMetrics';
import { createServer, SERVICE_NAMES } from './server';

/** Composition root: the only place that reads process.env and listens. */
async function main(): Promise<void> {
  // A bad variable throws a ConfigError naming it; main().catch logs it and exits 1.
  const config = loadPlansConfig(process.env);
  const log = createLogger({ service: 'plans', level: config.LOG_LEVEL });

  const pool = createServicePool(config, { schema: SCHEMA, name: 'plans', log });
  if (config.MIGRATE_ON_START) await migrate(pool, log);

  const registry = createMetricsRegistry();
  const { server, health } = createServer({
    pool,
    log,
    callerTokens: callerTokensOf(config),
    metrics: new GrpcServerMetrics(registry),
    plans: planMetrics(registry),
    pendingLimit: config.PENDING_PLAN_LIMIT,
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
  log.info(
    {
      port,
      host: config.GRPC_HOST,
      ops_port: ops.port,
      pending_plan_limit: config.PENDING_PLAN_LIMIT,
    },
    'listening',
  );

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
    { name: 'close database pool', run: () => pool.end() },
    { name: 'flush traces', run: stopTelemetry },
  ]);
}

main().catch((err: unknown) =>
  exitOnStartupFailure(createLogger({ service: 'plans', level: 'info' }), err),
);

// The code cache first (later starts read compiled code instead of compiling it again), then
// telemetry: it instruments libraries as they are loaded (no-op without OTLP config).
import '@brand/shared/compileCache';
import '@brand/shared/telemetry/register';
import { assertionKeysOf, callerTokensOf } from '@brand/shared/config';
import { createServicePool } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { createMetricsRegistry, GrpcServerMetrics } from '@brand/shared/metrics';
import { listenGrpcService } from '@brand/shared/service';
import { stopTelemetry } from '@brand/shared/telemetry';
import { exitOnStartupFailure, onShutdown } from '@brand/shared/shutdown';
import { loadPlansConfig } from './config';
import { startServiceAuditRelay } from '@brand/shared/audit';

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
    memberAssertionKeys: assertionKeysOf(config),
    metrics: new GrpcServerMetrics(registry),
    plans: planMetrics(registry),
    pendingLimit: config.PENDING_PLAN_LIMIT,
  });
  const service = await listenGrpcService({
    server,
    health,
    serviceNames: SERVICE_NAMES,
    pool,
    log,
    registry,
    config,
  });
  log.info(
    {
      port: service.port,
      host: config.GRPC_HOST,
      ops_port: service.opsPort,
      pending_plan_limit: config.PENDING_PLAN_LIMIT,
    },
    'listening',
  );

  // Plans' activity on its way to the trail (issue 63), in order.
  const auditRelay = startServiceAuditRelay(config, { pool, log, source: 'plans', registry });

  onShutdown(log, config.SHUTDOWN_GRACE_MS, [
    service.reportNotServing,
    auditRelay,
    service.finishCalls,
    service.closeOps,
    { name: 'close database pool', run: () => pool.end() },
    { name: 'flush traces', run: stopTelemetry },
  ]);
}

main().catch((err: unknown) =>
  exitOnStartupFailure(createLogger({ service: 'plans', level: 'info' }), err),
);

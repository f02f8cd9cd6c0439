import type { HealthImplementation } from 'grpc-health-check';
import type { Server } from '@grpc/grpc-js';
import { watchDatabaseHealth, type Pool } from '../db';
import { bindServer, setAllHealth, shutdownServer } from '../grpc';
import type { Logger } from '../logger';
import { dependencyUpGauge, startOpsServer, type Registry } from '../metrics';
import type { ShutdownStep } from '../shutdown';

/** The listen and probe settings every gRPC service's config has (grpcServiceEnv). */
export interface GrpcServiceSettings {
  GRPC_HOST: string;
  GRPC_PORT: number;
  METRICS_HOST: string;
  METRICS_PORT: number;
  HEALTH_PROBE_INTERVAL_MS: number;
  SHUTDOWN_GRACE_MS: number;
}

export interface ListeningGrpcService {
  port: number;
  opsPort: number;
  /** The first shutdown step: NOT_SERVING, so balancers stop sending calls. */
  reportNotServing: ShutdownStep;
  /** Stops taking calls and lets the in-flight ones finish. */
  finishCalls: ShutdownStep;
  closeOps: ShutdownStep;
}

/**
 * What every gRPC service does once its server is built: listen, report SERVING while its
 * database answers (grpc.health.v1, probed every HEALTH_PROBE_INTERVAL_MS), serve /metrics on
 * the internal listener; and the shutdown steps that undo it, for the service to order among
 * its own.
 */
export async function listenGrpcService(opts: {
  server: Server;
  health: HealthImplementation;
  serviceNames: string[];
  pool: Pool;
  log: Logger;
  registry: Registry;
  config: GrpcServiceSettings;
  /**
   * Dependencies besides the database that /readyz reports (e.g. kafka): each true while
   * reachable, false when not ("unreachable"), or its state in words ("ok", "authentication
   * failed"). They do not change grpc.health.v1: a service keeps serving its RPCs without them.
   */
  dependencies?: Record<string, () => boolean | string>;
}): Promise<ListeningGrpcService> {
  const { config, health, serviceNames } = opts;
  const port = await bindServer(opts.server, `${config.GRPC_HOST}:${config.GRPC_PORT}`);
  let database = 'unreachable';
  const stopWatching = watchDatabaseHealth(
    { pool: opts.pool, log: opts.log, intervalMs: config.HEALTH_PROBE_INTERVAL_MS },
    (ok, state) => {
      database = state;
      setAllHealth(health, serviceNames, ok ? 'SERVING' : 'NOT_SERVING');
    },
  );
  const others = (): Array<[string, string]> =>
    Object.entries(opts.dependencies ?? {}).map(([name, check]) => {
      const state = check();
      return [name, typeof state === 'string' ? state : state ? 'ok' : 'unreachable'];
    });
  // the database is PostgreSQL to an operator's alert (dependency_up{dependency="postgresql"})
  dependencyUpGauge(opts.registry, () => ({
    postgresql: database === 'ok',
    ...Object.fromEntries(others().map(([name, state]) => [name, state === 'ok'])),
  }));
  const ops = await startOpsServer({
    host: config.METRICS_HOST,
    port: config.METRICS_PORT,
    registry: opts.registry,
    readiness: () => ({ database, ...Object.fromEntries(others()) }),
  });
  return {
    port,
    opsPort: ops.port,
    reportNotServing: {
      name: 'report NOT_SERVING so balancers stop sending calls',
      run: () => {
        stopWatching();
        setAllHealth(health, serviceNames, 'NOT_SERVING');
      },
    },
    finishCalls: {
      name: 'finish in-flight calls',
      run: () => shutdownServer(opts.server, config.SHUTDOWN_GRACE_MS - 1_000),
    },
    closeOps: { name: 'close the operations listener', run: () => ops.close() },
  };
}

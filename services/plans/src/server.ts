import type { KeyObject } from 'node:crypto';
import { PlansServiceService } from '@brand/proto/plans/v1';
import type { Pool } from '@brand/shared/db';
import {
  CallerAuth,
  createGrpcServer,
  createHealth,
  rpcBuilder,
  type CallerTokens,
} from '@brand/shared/grpc';
import type { Logger } from '@brand/shared/logger';
import type { RpcObserver } from '@brand/shared/metrics';
import type { Server } from '@grpc/grpc-js';
import type { HealthImplementation } from 'grpc-health-check';
import { plansHandlers } from './plans/grpcHandlers';
import type { PlanObserver } from './plans/planMetrics';

export interface PlansDeps {
  pool: Pool;
  log: Logger;
  callerTokens: CallerTokens;
  /** Records' public keys (current first) that console member assertions are checked with. */
  memberAssertionKeys: readonly KeyObject[];
  pendingLimit: number;
  /** Counts and times every call for /metrics; optional so tests may leave it out. */
  metrics?: RpcObserver;
  /** Counts plan outcomes for /metrics. */
  plans?: PlanObserver;
}

/** The fully qualified names the health service reports on. */
export const SERVICE_NAMES = ['brand.plans.v1.PlansService'];

/**
 * Builds the gRPC server with the plans service and the health service; does not bind.
 * Every RPC checks the caller's credential; only grpc.health.v1 is open, for probes.
 */
export function createServer(deps: PlansDeps): { server: Server; health: HealthImplementation } {
  const server = createGrpcServer();
  const health = createHealth(SERVICE_NAMES, server);
  const rpc = rpcBuilder({
    log: deps.log,
    auth: new CallerAuth(deps.callerTokens),
    metrics: deps.metrics,
    memberAssertionKeys: deps.memberAssertionKeys,
  });
  server.addService(
    PlansServiceService,
    plansHandlers(
      { pool: deps.pool, log: deps.log, pendingLimit: deps.pendingLimit },
      rpc,
      deps.plans,
    ),
  );
  return { server, health };
}

import { WebhooksServiceService } from '@brand/proto/webhooks/v1';
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
import { webhooksHandlers } from './receivers/grpcHandlers';
import type { ReceiverDeps } from './receivers/receiverService';

/** The fully qualified names the health service reports on. */
export const SERVICE_NAMES = ['brand.webhooks.v1.WebhooksService'];

/**
 * Builds the gRPC server: the health service always (every role needs probes), the
 * WebhooksService only when `receivers` is given (the admin role). Does not bind.
 */
export function createServer(deps: {
  log: Logger;
  callerTokens: CallerTokens;
  /** Counts and times every call for /metrics; optional so tests may leave it out. */
  metrics?: RpcObserver;
  receivers: ReceiverDeps | undefined;
}): { server: Server; health: HealthImplementation } {
  const server = createGrpcServer();
  const health = createHealth(SERVICE_NAMES, server);
  if (deps.receivers) {
    const rpc = rpcBuilder({
      log: deps.log,
      auth: new CallerAuth(deps.callerTokens),
      metrics: deps.metrics,
    });
    server.addService(WebhooksServiceService, webhooksHandlers(deps.receivers, rpc));
  }
  return { server, health };
}

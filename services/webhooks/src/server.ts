import type { KeyObject } from 'node:crypto';
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
import { webhooksAdminHandlers, type AdminDeps } from './admin/adminHandlers';
import { addFeedService, type FeedDeps } from './feed/feedHandlers';
import type { FeedPageStreams } from './feed/feedPageStreams';
import { addAuditServices } from './audit/auditHandlers';
import type { AuditLogDeps } from './audit/auditLogService';
import { addStreamService } from './streams/streamHandlers';
import type { StreamDeps } from './streams/streamService';

/** The fully qualified names the health service reports on. */
export const SERVICE_NAMES = [
  'brand.webhooks.v1.WebhooksService',
  'brand.webhooks.v1.EventsFeedService',
  'brand.webhooks.v1.AuditIngestService',
  'brand.webhooks.v1.AuditLogService',
  'brand.webhooks.v1.AuditStreamService',
];

/**
 * Builds the gRPC server: the health service always (every role needs probes), the
 * WebhooksService only when `admin` is given (the admin role), and EventsFeedService (the
 * events feed the gateway reads, and its page streams, which shutdown drains) when `feed` is.
 * Does not bind.
 */
export function createServer(deps: {
  log: Logger;
  callerTokens: CallerTokens;
  /** Records' public keys (current first) that console member assertions are checked with. */
  memberAssertionKeys: readonly KeyObject[];
  /** Counts and times every call for /metrics; optional so tests may leave it out. */
  metrics?: RpcObserver;
  /** The admin role's dependencies; undefined when this process does not play it. */
  admin: AdminDeps | undefined;
  /** The events feed's dependencies; given with `admin`, the role that answers gRPC. */
  feed?: FeedDeps;
  /** Pages one feed page stream may have in flight (PAGE_STREAM_MAX_IN_FLIGHT). */
  pageStreamMaxInFlight?: number;
  /** The audit trail's ingest and log (issue 63); given with `admin`. */
  audit?: AuditLogDeps;
  /** Audit streams (issue 63); given with `admin`. */
  streams?: StreamDeps & { onChanged?: () => void };
}): { server: Server; health: HealthImplementation; feedStreams: FeedPageStreams | undefined } {
  const server = createGrpcServer();
  const health = createHealth(SERVICE_NAMES, server);
  let feedStreams: FeedPageStreams | undefined;
  if (deps.admin) {
    const rpc = rpcBuilder({
      log: deps.log,
      auth: new CallerAuth(deps.callerTokens),
      metrics: deps.metrics,
      memberAssertionKeys: deps.memberAssertionKeys,
    });
    server.addService(WebhooksServiceService, webhooksAdminHandlers(deps.admin, rpc));
    if (deps.audit) addAuditServices(server, rpc, deps.audit);
    if (deps.streams) addStreamService(server, rpc, deps.streams);
    if (deps.feed)
      feedStreams = addFeedService(server, deps.feed, rpc, {
        pageStreamMaxInFlight: deps.pageStreamMaxInFlight ?? 256,
        metrics: deps.metrics,
      });
  }
  return { server, health, feedStreams };
}

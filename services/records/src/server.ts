import { AccessServiceService } from '@brand/proto/access/v1';
import { RecordsServiceService } from '@brand/proto/records/v1';
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
import { accessHandlers } from './access/grpcHandlers';
import type { RevocationNotifier } from './access/revocations';
import { changeHandlers } from './changes/grpcHandlers';
import { CursorCodec } from './records/cursor';
import { recordsHandlers } from './records/grpcHandlers';
import type { VersionPublisher } from './versions/versionPublisher';

export interface RecordsDeps {
  pool: Pool;
  log: Logger;
  revocations: RevocationNotifier;
  callerTokens: CallerTokens;
  /** Counts and times every call for /metrics; optional so tests may leave it out. */
  metrics?: RpcObserver;
  cursorSecret: string;
  cursorSecretsPrevious: string[];
  /** Publishes change versions after writes (ETag and 304 at the gateway). */
  versions: VersionPublisher;
}

/** The fully qualified names the health service reports on. */
export const SERVICE_NAMES = ['brand.records.v1.RecordsService', 'brand.access.v1.AccessService'];

/**
 * Builds the gRPC server with both services and the health service; does not bind. Every
 * RPC checks the caller's credential; only grpc.health.v1 is open, for probes.
 */
export function createServer(deps: RecordsDeps): { server: Server; health: HealthImplementation } {
  const server = createGrpcServer();
  const health = createHealth(SERVICE_NAMES, server);
  const rpc = rpcBuilder({
    log: deps.log,
    auth: new CallerAuth(deps.callerTokens),
    metrics: deps.metrics,
  });
  const cursors = new CursorCodec(deps.cursorSecret, deps.cursorSecretsPrevious);
  server.addService(RecordsServiceService, {
    ...recordsHandlers({ pool: deps.pool, cursors, versions: deps.versions }, rpc),
    ...changeHandlers({ pool: deps.pool, versions: deps.versions }, rpc),
  });
  server.addService(
    AccessServiceService,
    accessHandlers({ pool: deps.pool, log: deps.log, revocations: deps.revocations }, rpc),
  );
  return { server, health };
}

import type { Server } from '@grpc/grpc-js';
import {
  AuditIngestServiceService,
  AuditLogServiceService,
  type AuditIngestServiceServer,
  type AuditLogServiceServer,
} from '@brand/proto/webhooks/v1/audit';
import type { RpcBuilder } from '@brand/shared/grpc';
import { listAuditLog, type AuditLogDeps } from './auditLogService';
import { ingestAuditEntries } from './ingestService';

/**
 * The trail's two internal services (issue 63), served by the admin role: IngestAuditEntries
 * for records' and plans' relays, ListAuditLog for the gateway (the brand is the admitted
 * key's; the gateway checked audit:read). Both take the internal credential only.
 */
export function addAuditServices(server: Server, rpc: RpcBuilder, deps: AuditLogDeps): void {
  const ingest: AuditIngestServiceServer = {
    ingestAuditEntries: rpc.internal('IngestAuditEntries', async (req) => {
      const stored = await ingestAuditEntries(deps.pool, req.entries);
      if (stored.size > 0) deps.onStored?.();
      return { stored: [...stored.values()].reduce((a, b) => a + b, 0) };
    }),
  };
  const log: AuditLogServiceServer = {
    listAuditLog: rpc.internal('ListAuditLog', (req) => listAuditLog(deps, req)),
  };
  server.addService(AuditIngestServiceService, ingest);
  server.addService(AuditLogServiceService, log);
}

import { AuditIngestServiceClient } from '@brand/proto/webhooks/v1/audit';
import { z } from 'zod';
import { msEnv } from '../config';
import { connectClient, createCaller } from '../grpcClient/client';
import type { AuditPush } from './auditRelay';

/**
 * The settings of a service that hands its audit outbox to the webhooks service (records,
 * plans). Without WEBHOOKS_GRPC_ADDR nothing is handed on (and rows older than 7 days go): a
 * deployment without the webhooks service still runs.
 */
export const auditRelayEnv = {
  /** The webhooks service's admin role (AuditIngestService), e.g. webhooks:50053. */
  WEBHOOKS_GRPC_ADDR: z.string().min(1).optional(),
  /** How long an idle relay waits before looking at its outbox again. */
  AUDIT_RELAY_POLL_MS: msEnv.default(500),
};

/** Hands entries to the webhooks service over gRPC with the internal credential. */
export function webhooksAuditPush(opts: { address: string; token: string; deadlineMs: number }): {
  push: AuditPush;
  close: () => void;
} {
  const client = connectClient(AuditIngestServiceClient, opts.address);
  const call = createCaller(client, { token: opts.token, deadlineMs: opts.deadlineMs });
  return {
    push: async (entries) => {
      await call('ingestAuditEntries', { entries });
    },
    close: () => client.close(),
  };
}

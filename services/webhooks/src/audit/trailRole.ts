import { startAuditRelay } from '@brand/shared/audit';
import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import type { ShutdownStep } from '@brand/shared/shutdown';
import type { WebhooksConfig } from '../config';
import { ingestAuditEntries } from './ingestService';

/** Rows of the webhooks service's own outbox handed to the trail in one turn. */
const BATCH_SIZE = 500;

/**
 * The webhooks service's own part of the trail, run by the worker role (issue 63): its activity
 * (receivers, deliveries, rotations, catch-up, streams) goes from its outbox into the trail as
 * records' and plans' does through IngestAuditEntries, here without the hop.
 */
export function startTrailRelay(
  config: Pick<WebhooksConfig, 'AUDIT_RELAY_POLL_MS'>,
  deps: { pool: Pool; log: Logger; onStored?: (brands: ReadonlySet<string>) => void },
): ShutdownStep {
  const relay = startAuditRelay(
    {
      pool: deps.pool,
      log: deps.log,
      source: 'webhooks',
      push: async (entries) => {
        const stored = await ingestAuditEntries(deps.pool, entries);
        if (stored.size > 0) deps.onStored?.(new Set(stored.keys()));
      },
    },
    { pollMs: config.AUDIT_RELAY_POLL_MS, batchSize: BATCH_SIZE, retentionMs: 7 * 24 * 3600_000 },
  );
  return { name: "stop the trail's relay", run: () => relay.stop() };
}

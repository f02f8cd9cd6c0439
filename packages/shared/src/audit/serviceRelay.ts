import type { Registry } from 'prom-client';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import type { ShutdownStep } from '../shutdown';
import { webhooksAuditPush } from './auditIngestClient';
import { startAuditRelay } from './auditRelay';
import { auditRelayMetrics } from './relayMetrics';

/** Rows a relay hands over in one call. */
const BATCH_SIZE = 500;
/** Rows nobody took (no webhooks service configured) are deleted after this long. */
const UNTAKEN_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * The audit relay of records or plans (issue 63): its outbox handed to the webhooks service at
 * WEBHOOKS_GRPC_ADDR, or, without one, kept 7 days and dropped. Its outbox and failures go on
 * `registry` (relayMetrics.ts). Returns the shutdown step that ends it (a turn cut short rolls
 * back: its rows go with the next relay).
 */
export function startServiceAuditRelay(
  config: {
    WEBHOOKS_GRPC_ADDR?: string | undefined;
    AUDIT_RELAY_POLL_MS: number;
    INTERNAL_TOKEN: string;
    GRPC_DEADLINE_MS?: number;
  },
  deps: { pool: Pool; log: Logger; source: 'records' | 'plans'; registry: Registry },
): ShutdownStep {
  const target = config.WEBHOOKS_GRPC_ADDR
    ? webhooksAuditPush({
        address: config.WEBHOOKS_GRPC_ADDR,
        token: config.INTERNAL_TOKEN,
        deadlineMs: config.GRPC_DEADLINE_MS ?? 5_000,
      })
    : undefined;
  if (!target)
    deps.log.warn(
      'no WEBHOOKS_GRPC_ADDR: the audit trail is not handed on (streams, API); entries wait in audit_outbox (audit_outbox_waiting_entries) and are deleted after 7 days',
    );
  const relay = startAuditRelay(
    {
      pool: deps.pool,
      log: deps.log,
      push: target?.push,
      source: deps.source,
      observer: auditRelayMetrics(deps.registry, deps.pool),
    },
    {
      pollMs: config.AUDIT_RELAY_POLL_MS,
      batchSize: BATCH_SIZE,
      retentionMs: UNTAKEN_RETENTION_MS,
    },
  );
  return {
    name: 'stop the audit relay',
    run: async () => {
      await relay.stop();
      target?.close();
    },
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditEntryIn } from '@brand/proto/webhooks/v1/audit';
import { withTransaction, type Pool } from '../db/pool';
import type { Logger } from '../logger';
import { deleteOutbox, selectOutbox, sweepOutbox, tryRelayLock } from './auditOutboxRepo';

/** Hands entries to the trail (the webhooks service's IngestAuditEntries); throws on failure. */
export type AuditPush = (entries: AuditEntryIn[]) => Promise<void>;

export interface AuditRelaySettings {
  /** AUDIT_RELAY_POLL_MS: how long an idle relay waits before looking again. */
  pollMs: number;
  /** Rows handed over in one call (the ingest takes at most 1,000). */
  batchSize: number;
  /** Without a push, rows older than this are deleted (nobody will take them). */
  retentionMs: number;
}

export interface AuditRelay {
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 10_000;
/** Without a push the relay only drops what nobody took: once a minute is plenty. */
const SWEEP_ONLY_MS = 60_000;

/**
 * The audit relay of one service (issue 63): hands its audit outbox on to the trail, oldest
 * first, at least once. One turn is one transaction: the relay lock (one relay of the service at
 * a time, so batches never overtake each other), the oldest rows, the push, and their deletion
 * once the trail has them; a push that fails rolls back, and the rows go again after a back-off
 * (the trail stores an entry once, by its id). A full batch is followed at once by the next, so a
 * backlog drains at the trail's pace; idle, the relay looks every `pollMs`. Without `push` (no
 * webhooks service configured) nothing is handed on, and rows older than `retentionMs` go.
 * Never throws.
 */
export function startAuditRelay(
  deps: {
    pool: Pool;
    log: Logger;
    push: AuditPush | undefined;
    /** The service whose outbox this is ("records", "plans", "webhooks"): each entry's source. */
    source: string;
  },
  settings: AuditRelaySettings,
): AuditRelay {
  const log = deps.log.child({ component: 'audit-relay' });
  const stopping = new AbortController();
  const turn = async (): Promise<number> => {
    const push = deps.push;
    if (!push)
      return sweepOutbox(deps.pool, settings.retentionMs, settings.batchSize).then(() => 0);
    return withTransaction(deps.pool, async (db) => {
      if (!(await tryRelayLock(db))) return 0;
      const rows = await selectOutbox(db, settings.batchSize);
      if (rows.length === 0) return 0;
      await push(
        rows.map((r) => ({
          id: r.entry_id,
          brand_id: r.brand_id,
          kind: r.kind,
          source: deps.source,
          row_json: r.row_json,
        })),
      );
      await deleteOutbox(
        db,
        rows.map((r) => r.id),
      );
      return rows.length;
    });
  };
  const loop = (async () => {
    let backoff = settings.pollMs;
    while (!stopping.signal.aborted) {
      let wait = deps.push ? settings.pollMs : Math.max(settings.pollMs, SWEEP_ONLY_MS);
      try {
        const n = await turn();
        backoff = settings.pollMs;
        if (n === settings.batchSize) wait = 0;
      } catch (err) {
        log.warn({ err, retry_in_ms: backoff }, 'handing audit entries on failed; trying again');
        wait = backoff;
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
      if (wait > 0)
        await sleep(wait, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  })();
  return {
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}

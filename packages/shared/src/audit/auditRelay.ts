import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditEntryIn } from '@brand/proto/webhooks/v1/audit';
import { withTransaction, type Pool, type PoolClient } from '../db/pool';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import {
  deleteOutbox,
  selectOutbox,
  setOutboxRowAside,
  sweepOutbox,
  tryRelayLock,
  type AuditOutboxRow,
} from './auditOutboxRepo';

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

/**
 * Why a hand-over failed: the trail could not be reached (or did not answer in time), it
 * refused the call (a wrong INTERNAL_TOKEN, or an entry it cannot store), or anything else.
 */
export type AuditRelayFailure = 'unreachable' | 'refused' | 'other';

/** What the relay reports as it goes (relayMetrics.ts). */
export interface AuditRelayObserver {
  failed(reason: AuditRelayFailure): void;
  /** An entry the trail refused on its own, set aside so the ones behind it go on. */
  setAside(): void;
}

const REFUSED_CODES: ReadonlySet<string> = new Set([
  'validation_failed',
  'unauthenticated',
  'insufficient_permission',
]);

export function auditRelayFailure(err: unknown): AuditRelayFailure {
  if (!(err instanceof AppError)) return 'other';
  if (err.code === 'service_unavailable') return 'unreachable';
  return REFUSED_CODES.has(err.code) ? 'refused' : 'other';
}

/** The trail refused an entry of the batch itself (validation_failed), not the call. */
const refusesAnEntry = (err: unknown): boolean =>
  err instanceof AppError && err.code === 'validation_failed';

const MAX_BACKOFF_MS = 10_000;
/** Without a push the relay only drops what nobody took: once a minute is plenty. */
const SWEEP_ONLY_MS = 60_000;

/**
 * The audit relay of one service (issue 63): hands its audit outbox on to the trail, oldest
 * first, at least once. One turn is one transaction: the relay lock (one relay of the service at
 * a time, so batches never overtake each other), the oldest rows, the push, and their deletion
 * once the trail has them; a push that fails rolls back, and the rows go again after a back-off
 * (the trail stores an entry once, by its id). A full batch is followed at once by the next, so a
 * backlog drains at the trail's pace; idle, the relay looks every `pollMs`. A batch refused for
 * one bad entry is split until that entry is alone; it is set aside in the outbox (marked in
 * the same turn, logged as an error and counted) and the good entries around it go in their
 * order, so one entry never stalls the outbox, and a restart does not try it again. Without `push` (no webhooks service configured) nothing is handed on, and rows older
 * than `retentionMs` go. Never throws; `observer` counts each failure by reason.
 */
export function startAuditRelay(
  deps: {
    pool: Pool;
    log: Logger;
    push: AuditPush | undefined;
    /** The service whose outbox this is ("records", "plans", "webhooks"): each entry's source. */
    source: string;
    observer?: AuditRelayObserver;
  },
  settings: AuditRelaySettings,
): AuditRelay {
  const log = deps.log.child({ component: 'audit-relay' });
  const stopping = new AbortController();
  const entriesOf = (rows: readonly AuditOutboxRow[]): AuditEntryIn[] =>
    rows.map((r) => ({
      id: r.entry_id,
      brand_id: r.brand_id,
      kind: r.kind,
      source: deps.source,
      row_json: r.row_json,
    }));
  /**
   * Hands `rows` on and deletes them; a batch the trail refuses for one of its entries goes in
   * halves, in order, down to the refused entry, which is set aside. Any other failure throws
   * (the turn rolls back, and whatever went already goes again: the trail stores an entry once).
   */
  const handOn = async (
    db: PoolClient,
    push: AuditPush,
    rows: readonly AuditOutboxRow[],
  ): Promise<void> => {
    try {
      await push(entriesOf(rows));
    } catch (err) {
      if (!refusesAnEntry(err)) throw err;
      if (rows.length > 1) {
        const half = Math.ceil(rows.length / 2);
        await handOn(db, push, rows.slice(0, half));
        await handOn(db, push, rows.slice(half));
        return;
      }
      const row = rows[0]!;
      await setOutboxRowAside(db, row.id, err instanceof Error ? err.message : String(err));
      deps.observer?.failed('refused');
      deps.observer?.setAside();
      log.error(
        { err, outbox_id: row.id, entry_id: row.entry_id, brand_id: row.brand_id, kind: row.kind },
        'the audit trail refused this entry; it stays in audit_outbox, set aside (set_aside_at), and the entries behind it go on',
      );
      return;
    }
    await deleteOutbox(
      db,
      rows.map((r) => r.id),
    );
  };
  const turn = async (): Promise<number> => {
    const push = deps.push;
    if (!push)
      return sweepOutbox(deps.pool, settings.retentionMs, settings.batchSize).then(() => 0);
    return withTransaction(deps.pool, async (db) => {
      if (!(await tryRelayLock(db))) return 0;
      const rows = await selectOutbox(db, settings.batchSize);
      if (rows.length === 0) return 0;
      await handOn(db, push, rows);
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
        const reason = auditRelayFailure(err);
        deps.observer?.failed(reason);
        log.warn(
          { err, reason, retry_in_ms: backoff },
          'handing audit entries on failed; trying again',
        );
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

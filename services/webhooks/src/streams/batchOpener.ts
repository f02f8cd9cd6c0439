import { setTimeout as sleep } from 'node:timers/promises';
import { withTransaction, type Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import { openStreamWork, type QueuedBatch } from './batchRepo';

/** Streams one turn takes at most (their rows locked, SKIP LOCKED: replicas share them). */
const STREAMS_PER_TURN = 100;
const MAX_BACKOFF_MS = 10_000;

export interface BatchOpener {
  /** Entries were stored, or a stream changed: look now rather than at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * The worker role's loop that gives audit streams their work (issue 63): every `pollMs`, and at
 * once when woken, the streams whose brand has entries past what they were sent get their next
 * run (openStreamWork: also a run to try again after its round was spent, or after the stream
 * was enabled again), handed to the worker. The run after a success is opened by the success
 * itself (streamOutcome.ts); this loop brings each stream its first run after a quiet spell, so
 * an entry reaches a stream within about a poll of being stored. Never throws.
 */
export function startBatchOpener(
  deps: { pool: Pool; log: Logger; onQueued: (runs: QueuedBatch[]) => void },
  settings: { pollMs: number; batchMax: number },
): BatchOpener {
  const stopping = new AbortController();
  let woken = false;
  let wakeUp: (() => void) | undefined;
  const loop = (async () => {
    let backoff = settings.pollMs;
    while (!stopping.signal.aborted) {
      woken = false;
      let wait = settings.pollMs;
      try {
        const runs = await withTransaction(deps.pool, (db) =>
          openStreamWork(db, { max: settings.batchMax, limit: STREAMS_PER_TURN }),
        );
        backoff = settings.pollMs;
        if (runs.length > 0) deps.onQueued(runs);
        if (runs.length === STREAMS_PER_TURN) wait = 0;
      } catch (err) {
        deps.log.warn(
          { err, retry_in_ms: backoff },
          'opening audit stream runs failed; trying again',
        );
        wait = backoff;
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
      if (wait === 0 || woken) continue;
      await new Promise<void>((resolve) => {
        wakeUp = resolve;
        sleep(wait, undefined, { signal: stopping.signal }).then(resolve, resolve);
      });
      wakeUp = undefined;
    }
  })();
  return {
    wake: () => {
      woken = true;
      wakeUp?.();
    },
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}

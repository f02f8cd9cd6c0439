import type { Pool } from '@brand/shared/db';
import { waitFor } from './waitFor';

/**
 * The services' statement timeout in a file that queues requests through the console (or a
 * brandctl command) behind a held row lock: the first request's statement waits on the lock
 * until the last request has reached it, and on a loaded machine a save through the console took
 * past the 5 s default to get there (a fresh-clone CI run, 2026-12-03: the first of two answered
 * 503, its statement cancelled while it waited). Give it to records and webhooks (recordsEnv,
 * webhooksEnv).
 */
export const LOCK_QUEUE_SERVICE_ENV = { DATABASE_STATEMENT_TIMEOUT_MS: '30000' } as const;

/**
 * Holds a row lock (`lockSql`, run in a transaction of its own) while `queue` starts requests
 * one by one: each is awaited until it waits on a lock in this database, so they queue behind
 * the holder in the order given (PostgreSQL hands a row to its waiters first come, first
 * served). Then the lock is released and the requests are answered in that order. How a test
 * puts two changes "at the same moment" exactly where a race would lose one.
 */
export async function queueBehindRowLock<T extends readonly Promise<unknown>[]>(
  pool: Pool,
  lock: { sql: string; params: unknown[] },
  queue: { [K in keyof T]: () => T[K] },
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const holder = await pool.connect();
  const started: Promise<unknown>[] = [];
  try {
    await holder.query('begin');
    await holder.query(lock.sql, lock.params);
    // Each request is known by the backend that starts waiting once it is sent: a count of all
    // waiters was thrown by another process's wait on the same row (an audit stream's worker
    // recording a failed run under the stream's row lock, a flaky run of 2026-12-03), which
    // is in `before` when it waits already and otherwise is as likely after a request as before.
    const queued = new Set<number>();
    for (const [i, start] of queue.entries()) {
      const before = await lockWaiters(pool);
      const answer = start();
      answer.catch(() => undefined); // awaited below; not unhandled meanwhile
      started.push(answer);
      await waitFor(
        async () => {
          const fresh = [...(await lockWaiters(pool))].find(
            (pid) => !before.has(pid) && !queued.has(pid),
          );
          if (fresh !== undefined) queued.add(fresh);
          return fresh !== undefined;
        },
        { timeoutMs: 10_000, what: `request ${i + 1} of ${queue.length} waiting on the lock` },
      );
    }
  } finally {
    await holder.query('commit');
    holder.release();
  }
  return Promise.all(started) as Promise<{ [K in keyof T]: Awaited<T[K]> }>;
}

/** The backends of this database waiting on a lock. */
async function lockWaiters(pool: Pool): Promise<Set<number>> {
  const r = await pool.query<{ pid: number }>(
    `select pid from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return new Set(r.rows.map((row) => row.pid));
}

/** What a racing call got, as a value (ok, or its error's code), so a test compares two of them. */
export type Outcome = { ok: true } | { ok: false; code: string | undefined };

/** `call` as a request for the queue: answers its outcome instead of throwing. */
export const outcomeOf = (call: () => Promise<unknown>) => (): Promise<Outcome> =>
  call().then(
    () => ({ ok: true as const }),
    (err: { code?: string }) => ({ ok: false as const, code: err.code }),
  );

/**
 * Two changes to one brand "at the same moment": queued, `first` then `second`, behind a lock on
 * the brand's row (what member, key and SSO changes take first), each answering its outcome.
 */
export const twoChangesAtOnce = (
  pool: Pool,
  brandId: string,
  first: () => Promise<unknown>,
  second: () => Promise<unknown>,
): Promise<readonly [Outcome, Outcome]> =>
  queueBehindRowLock(
    pool,
    { sql: 'select 1 from brands where id = $1 for update', params: [brandId] },
    [outcomeOf(first), outcomeOf(second)] as const,
  );

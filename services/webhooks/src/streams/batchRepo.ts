import { rfc3339, type PoolClient } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';
import { limitsAfterTooLarge, limitsForRun, type RunLimits } from './runSize';

/**
 * The deliveries of audit streams (issue 63). A stream is a receivers row of another kind, and a
 * run of its brand's entries is one delivery of the engine (with an events row of type
 * `audit.entries` that names the run; never in the events feed, which reads fed positions only).
 * A stream has at most one run pending: the next starts after the last one succeeded, so a
 * destination gets its brand's entries in order however its deliveries are retried. Every
 * write here takes the stream's row lock first (FOR NO KEY UPDATE, the one lock order of the
 * engine's writers: attemptRepo.ts).
 */

/** The event type of a stream's deliveries: a run of entries, or a test entry. */
const AUDIT_BATCH_TYPE = 'audit.entries';

/**
 * The positions a run carries, as its events row keeps them, with the limits a 413 set
 * (runSize.ts): `cap`, the entries a run may carry since its destination refused a larger one as
 * too large (a run split in halves carries it: splitTooLargeRun), and while a backlog drains the
 * fewest entries refused (`refused`, `settled`). Each run that succeeds with a cap opens the next
 * with a larger one (recordStreamSuccess: twice, or halfway toward the refused size), until it
 * reaches AUDIT_STREAM_BATCH_MAX and is dropped, so one spurious 413 does not keep a stream at
 * runs of one entry while a backlog drains, and a limit that stays is not refused every other
 * run; a run opened with nothing pending (the opener's, after a quiet spell) has none.
 */
export interface RunRange extends Partial<RunLimits> {
  from: number;
  through: number;
}

/** A delivery this module queued, to hand to the worker's feed (claimed by primary key). */
export interface QueuedBatch {
  id: string;
  eventAt: string;
  receiverId: string;
}

/**
 * Inserts one delivery of a stream with its events row: a run (`range`) or a test entry
 * (`testEntry`, its JSON kept on the event). Due now.
 */
export async function insertBatch(
  db: PoolClient,
  stream: { id: string; brand_id: string },
  what: { range: RunRange } | { testEntry: string },
): Promise<QueuedBatch> {
  const test = 'testEntry' in what;
  const res = await db.query<{ id: string; event_at: string }>({
    name: 'webhooks.insert-audit-batch',
    text: `with ev as (
       insert into events (id, brand_id, type, created_at, object_json, test, producer)
       values ($1, $2, '${AUDIT_BATCH_TYPE}', now(), $3, $4, 'audit')
       returning id, created_at
     ), dl as (
       insert into deliveries (id, event_id, event_at, event_type, receiver_id, brand_id, test)
       select $5, ev.id, ev.created_at, '${AUDIT_BATCH_TYPE}', $6, $2, $4 from ev
       returning id, event_at
     )
     select id, ${rfc3339('event_at')} as event_at from dl`,
    values: [
      newId('event'),
      stream.brand_id,
      test ? what.testEntry : JSON.stringify(what.range),
      test,
      newId('delivery'),
      stream.id,
    ],
  });
  const row = res.rows[0]!;
  return { id: row.id, eventAt: row.event_at, receiverId: stream.id };
}

/** A stream as the opener and the success path see it, locked. */
export interface StreamState {
  id: string;
  brand_id: string;
  enabled: boolean;
  delivered_through: number;
  batch_id: string | null;
  batch_through: number | null;
  batch_status: 'pending' | 'succeeded' | 'failed' | null;
  head: number;
}

const STATE_COLUMNS = `r.id, r.brand_id, r.enabled, r.stream_delivered_through::float8 as delivered_through,
  r.stream_batch_id as batch_id, r.stream_batch_through::float8 as batch_through,
  d.status as batch_status,
  coalesce((select h.last_seq from audit_heads h where h.brand_id = r.brand_id), 0)::float8 as head`;

/** Queues `range` as the stream's one run. */
async function openRun(db: PoolClient, s: StreamState, range: RunRange): Promise<QueuedBatch> {
  const batch = await insertBatch(db, s, { range });
  await db.query(
    `update receivers set stream_batch_id = $2, stream_batch_event_at = $3, stream_batch_through = $4
     where id = $1`,
    [s.id, batch.id, batch.eventAt, range.through],
  );
  return batch;
}

/**
 * Opens the stream's next run when entries wait past what it was sent: at most `max` of them,
 * or the cap when its destination refused larger runs (limitsForRun: a cap of `max` or more is
 * dropped, and the refused size forgotten once fewer entries wait than the cap allows).
 */
async function openNext(
  db: PoolClient,
  s: StreamState,
  max: number,
  limits?: RunLimits,
): Promise<QueuedBatch | undefined> {
  if (!s.enabled || s.head <= s.delivered_through) return undefined;
  const kept = limitsForRun(limits, s.head - s.delivered_through, max);
  const from = s.delivered_through + 1;
  const through = Math.min(s.head, s.delivered_through + Math.min(kept?.cap ?? max, max));
  return openRun(db, s, { from, through, ...kept });
}

/**
 * A run of the stream succeeded (in the transaction that records its 2xx): the stream is sent
 * through the run's last position, and its next run opens at once when more entries wait.
 * Nothing when the run is not the stream's current one (it was removed and added again).
 */
export async function advanceAfterSuccess(
  db: PoolClient,
  streamId: string,
  deliveryId: string,
  max: number,
  limits?: RunLimits,
): Promise<QueuedBatch | undefined> {
  const res = await db.query<StreamState>(
    `with moved as (
       update receivers r set stream_delivered_through = r.stream_batch_through,
         stream_batch_id = null, stream_batch_event_at = null, stream_batch_through = null
       where r.id = $1 and r.stream_batch_id = $2
       returning r.*
     )
     select ${STATE_COLUMNS} from moved r
     left join deliveries d on false`,
    [streamId, deliveryId],
  );
  const s = res.rows[0];
  return s ? openNext(db, s, max, limits) : undefined;
}

/**
 * A run of two entries or more its destination refused as too large (413), in the caller's
 * transaction after the stream's row lock (lockCurrentRun): queued again as its first half, due
 * now, with the half as the cap of the runs after it (the second half is the next run), so the
 * destination still gets every entry in position order, and the refused size remembered for the
 * drain (limitsAfterTooLarge, from the limits the run carries now: `carried`, read again in the
 * transaction, as a new destination drops them). The stream's last status and error say so, but
 * its failure streak is left alone: halving is progress, not a failure (a destination refusing
 * everything is counted once its runs are down to one entry: recordOutcome). Returns the run
 * queued.
 */
export async function splitTooLargeRun(
  db: PoolClient,
  s: StreamState,
  range: RunRange,
  carried: RunLimits | undefined,
  error: string,
): Promise<QueuedBatch> {
  const limits = limitsAfterTooLarge(range.through - range.from + 1, carried);
  await db.query(
    `update receivers set last_status = 413, last_delivery_at = now(), last_error = $2 where id = $1`,
    [s.id, error],
  );
  return openRun(db, s, { from: range.from, through: range.from + limits.cap - 1, ...limits });
}

/**
 * A run of one entry its destination refused as too large (413) on the last attempt of its
 * round, in the transaction that records that failure (recordOutcome, the stream's row locked
 * first): the entry is set aside (the stream moves past it, the entry stays in the audit log)
 * and the next run opens at full size. `undefined` when the run is no longer the stream's current
 * one or the stream is disabled: the run then fails as any other.
 */
export async function setAsideRun(
  db: PoolClient,
  streamId: string,
  deliveryId: string,
  max: number,
): Promise<{ next: QueuedBatch | undefined } | undefined> {
  const s = await lockCurrentRun(db, streamId, deliveryId);
  if (!s || s.batch_through === null) return undefined;
  await db.query(
    `update receivers set stream_delivered_through = $2, stream_batch_id = null,
       stream_batch_event_at = null, stream_batch_through = null
     where id = $1`,
    [s.id, s.batch_through],
  );
  return {
    next: await openNext(db, { ...s, delivered_through: s.batch_through, batch_id: null }, max),
  };
}

/**
 * The limits the run `deliveryId` carries now (runSize.ts), `undefined` without a cap: a
 * disable, an enable or a new destination drops them while the run waits (dropRunCap), so the
 * outcomes read them again rather than trust the copy claimed with the run.
 */
export async function runLimits(
  db: PoolClient,
  deliveryId: string,
  eventAt: string,
): Promise<RunLimits | undefined> {
  const res = await db.query<{ cap: number | null; refused: number | null; settled: boolean }>(
    `select (j ->> 'cap')::int as cap, (j ->> 'refused')::int as refused,
       coalesce((j ->> 'settled')::boolean, false) as settled
     from deliveries d join events e on e.id = d.event_id and e.created_at = d.event_at
     cross join lateral (select e.object_json::jsonb as j) o
     where d.id = $1 and d.event_at = $2`,
    [deliveryId, eventAt],
  );
  const row = res.rows[0];
  if (!row || row.cap === null) return undefined;
  return {
    cap: row.cap,
    ...(row.refused === null ? {} : { refused: row.refused }),
    ...(row.settled ? { settled: true } : {}),
  };
}

/**
 * Drops the cap of the stream's current run, and the refused size it remembers (a hostile
 * review, 2026-11-30: a cap from one 413 outlived a disable and enable, and a new URL): after an
 * owner's disable or enable, or a changed destination, the runs after it are full size again.
 * In the caller's transaction, after the stream's row is written (the engine's lock order).
 */
export async function dropRunCap(db: PoolClient, streamId: string): Promise<void> {
  await db.query(
    `update events e set object_json = (e.object_json::jsonb - 'cap' - 'refused' - 'settled')::text
     from receivers r
     join deliveries d on d.id = r.stream_batch_id and d.event_at = r.stream_batch_event_at
     where r.id = $1 and e.id = d.event_id and e.created_at = d.event_at
       and e.object_json::jsonb ? 'cap'`,
    [streamId],
  );
}

/** The stream's state, its row locked, when `deliveryId` is its current run and it is enabled. */
export async function lockCurrentRun(
  db: PoolClient,
  streamId: string,
  deliveryId: string,
): Promise<StreamState | undefined> {
  const res = await db.query<StreamState>(
    `select ${STATE_COLUMNS} from receivers r left join deliveries d on false
     where r.id = $1 and r.stream_batch_id = $2 and r.enabled
     for no key update of r`,
    [streamId, deliveryId],
  );
  return res.rows[0];
}

/**
 * One turn of the opener (batchOpener.ts), in the caller's transaction: the enabled streams
 * with work, locked (SKIP LOCKED: replicas share them), at most `limit`; for each, a run that
 * succeeded moves the stream on (its success path was cut short), a run that failed (its round
 * of retries spent, or failed when the stream was disabled and now enabled again) starts a new
 * round at once (nothing is skipped: the disable after RECEIVER_DISABLE_AFTER_MS without a 2xx
 * is what ends the trying), a run that vanished is opened again, and a stream with entries past
 * what it was sent gets its next run. Returns the runs queued.
 */
export async function openStreamWork(
  db: PoolClient,
  opts: { max: number; limit: number },
): Promise<QueuedBatch[]> {
  const res = await db.query<StreamState & { batch_event_at: string | null }>(
    `select ${STATE_COLUMNS}, ${rfc3339('r.stream_batch_event_at')} as batch_event_at
     from receivers r
     left join deliveries d on d.id = r.stream_batch_id and d.event_at = r.stream_batch_event_at
     where r.kind <> 'webhook' and r.enabled
       and (case when r.stream_batch_id is null
              then coalesce((select h.last_seq from audit_heads h where h.brand_id = r.brand_id), 0)
                   > r.stream_delivered_through
              else d.status is distinct from 'pending' end)
     order by r.id
     limit $1
     for no key update of r skip locked`,
    [opts.limit],
  );
  const queued: QueuedBatch[] = [];
  for (const s of res.rows) {
    if (s.batch_id !== null && s.batch_status === 'failed') {
      await db.query(
        `update deliveries set status = 'pending', next_attempt_at = now(), round_start = attempts,
           lease_until = null, completed_at = null, caught_up = false
         where id = $1 and event_at = $2 and status = 'failed'`,
        [s.batch_id, s.batch_event_at],
      );
      queued.push({ id: s.batch_id, eventAt: s.batch_event_at!, receiverId: s.id });
      continue;
    }
    let state = s;
    if (s.batch_id !== null) {
      // succeeded (its success path did not move the stream on), or gone: on from its end, or
      // again from where the stream was
      const through = s.batch_status === 'succeeded' ? s.batch_through! : s.delivered_through;
      await db.query(
        `update receivers set stream_delivered_through = $2, stream_batch_id = null,
           stream_batch_event_at = null, stream_batch_through = null
         where id = $1`,
        [s.id, through],
      );
      state = { ...s, delivered_through: through, batch_id: null };
    }
    const next = await openNext(db, state, opts.max);
    if (next) queued.push(next);
  }
  return queued;
}

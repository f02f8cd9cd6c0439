import type { Pool, PoolClient } from '@brand/shared/db';
import { holdTrailForResend } from '../audit/trailLock';

/**
 * The entries set aside from an audit stream (batchRepo.ts setAsideRun: one entry its
 * destination refused as too large alone on every attempt of a round), and sending them again.
 *
 * A set-aside entry is its run's delivery, kept as it failed: a failed run of one position that
 * is not the stream's current run, its entry still in the trail. Nothing else leaves such a
 * delivery (a run of two or more refused 413 is failed and sent again in halves; a current run
 * failed by a disable is started again on enable), so no marker is kept beside it. A resend puts
 * that same delivery back as pending with a new round, as a webhook delivery's resend does: its
 * success moves nothing (advanceAfterSuccess: not the stream's current run), and refused again on
 * a whole round it stays failed, set aside as before, to be sent again later.
 *
 * Order: the stream went on past the entry when it was set aside, so a resent entry arrives
 * after entries of later positions. It carries its position, which says where it belongs; the
 * stream's own runs are not rewound (that would send every later entry a second time).
 */

/** Set-aside entries sent again by one call, at most (the oldest first; the rest on another). */
const SET_ASIDE_RESEND_MAX = 100;

/** Whether the delivery `d` of the stream `r` is a set-aside entry still in the trail. */
const SET_ASIDE = `d.receiver_id = r.id and d.status = 'failed' and not d.test
  and d.id is distinct from r.stream_batch_id
  and exists (
    select 1 from events e
    cross join lateral (select e.object_json::jsonb as j) o
    where e.id = d.event_id and e.created_at = d.event_at
      and (o.j ->> 'from') = (o.j ->> 'through')
      and exists (select 1 from audit_entries a
                  where a.brand_id = d.brand_id and a.seq = (o.j ->> 'from')::bigint))`;

/**
 * Whether the delivery `d` is within the delivery history kept (`historyMs`, a query parameter
 * such as '$2'): a week wholly past it is dropped (historyPartitions.ts), and its drop does not
 * wait for a delivery a resend puts back meanwhile, so only these are sent again, and counted.
 */
const keptWithin = (historyMs: string) =>
  `d.event_at > now() - make_interval(secs => ${historyMs}::float8 / 1000)`;

/**
 * The stream `r`'s set-aside entries a resend would send again, as a column of its row
 * (streamRepo.ts; `historyMs` a query parameter): the walk of its failed deliveries
 * (deliveries_failed_receiver), few unless its destination refuses much. The same rule as the
 * resend's (a review of c980ad73: the count took deliveries past the history too, so for up to a
 * week an entry was offered that the resend refused as "queued or delivered").
 */
export const setAsideCount = (historyMs: string) =>
  `(select count(*) from deliveries d where ${SET_ASIDE} and ${keptWithin(historyMs)})::int`;

/**
 * Queues the stream's set-aside entries again, oldest first, at most SET_ASIDE_RESEND_MAX, each
 * its own delivery due now with a new round; only those whose week the delivery history still
 * keeps for a while (`historyMs`: a resend just before its week is dropped would vanish with it,
 * as for a webhook delivery's resend). In the caller's transaction, the stream's row locked
 * first (the engine's lock order), then the trail (trailLock.ts: not read while a
 * retention pass deletes from it); `undefined` when the stream is gone or disabled (its
 * deliveries would not be sent). A second call re-queues none of the first's: they are pending.
 */
export async function requeueSetAside(
  db: PoolClient,
  streamId: string,
  historyMs: number,
): Promise<{ requeued: number[]; remaining: number } | undefined> {
  const locked = await db.query(
    `select 1 from receivers where id = $1 and kind <> 'webhook' and enabled
     for no key update`,
    [streamId],
  );
  if (locked.rowCount === 0) return undefined;
  // a retention pass under way is waited for: read after it, an entry it deleted is no longer
  // set aside; and the next pass waits for this commit, so it sees one queued and keeps it
  await holdTrailForResend(db);
  const kept = keptWithin('$2');
  const res = await db.query<{ position: string }>(
    `with aside as (
       select d.id, d.event_at from receivers r join deliveries d on d.receiver_id = r.id
       where r.id = $1 and ${SET_ASIDE} and ${kept}
       order by d.created_at, d.id
       limit $3
     ), queued as (
       update deliveries d set status = 'pending', next_attempt_at = now(), round_start = attempts,
         lease_until = null, completed_at = null, caught_up = false
       from aside a where d.id = a.id and d.event_at = a.event_at and d.status = 'failed'
       returning d.event_id, d.event_at
     )
     select e.object_json::jsonb ->> 'from' as position
     from queued q join events e on e.id = q.event_id and e.created_at = q.event_at
     order by (e.object_json::jsonb ->> 'from')::bigint`,
    [streamId, historyMs, SET_ASIDE_RESEND_MAX],
  );
  return {
    requeued: res.rows.map((r) => Number(r.position)),
    remaining: await countResendable(db, streamId, historyMs),
  };
}

/** The stream's set-aside entries a resend would queue now (within the history kept). */
async function countResendable(
  db: Pool | PoolClient,
  streamId: string,
  historyMs: number,
): Promise<number> {
  const res = await db.query<{ n: number }>(
    `select ${setAsideCount('$2')} as n from receivers r where r.id = $1`,
    [streamId, historyMs],
  );
  return res.rows[0]!.n;
}

/**
 * The stream's set-aside entries past the delivery history kept, not yet dropped with their
 * week: no longer sent again, which a refused resend says rather than "queued or delivered".
 */
export async function countPastHistory(
  db: Pool | PoolClient,
  streamId: string,
  historyMs: number,
): Promise<number> {
  const res = await db.query<{ n: number }>(
    `select count(*)::int as n from receivers r join deliveries d on d.receiver_id = r.id
     where r.id = $1 and ${SET_ASIDE} and not ${keptWithin('$2')}`,
    [streamId, historyMs],
  );
  return res.rows[0]!.n;
}

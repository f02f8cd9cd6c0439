import { leaseFree } from '../claim/lease';

/**
 * Catch-up: a receiver that was failing and answers 2xx again gets its waiting deliveries due
 * now, so its backlog drains without anyone pressing a button.
 *
 * Written where a success is recorded (recordSucceededAttempts, attemptRepo.ts), as CTEs of
 * that one statement, so the drain commits with the 2xx that caused it. A receiver counts as
 * failing when failure_count > 0 as the statement's lock read it (the `receiver` CTE); every
 * delivery of it that waits for its next retry becomes due now, oldest first a microsecond
 * apart, paced by the worker's per-receiver bound (claim/deliveryLanes.ts); at most once per
 * delivery and round (`caught_up`), so a delivery the receiver refuses by itself keeps to its
 * schedule. One activity entry per receiver says so, with the id the statement passes in
 * (`activity_id` of the `outcome` CTE).
 *
 * Reads the CTEs `receiver` (id, brand_id, label, failure_count) and `outcome`
 * (receiver_id, activity_id); defines `due`, `drained` and `caught_up`.
 */
export const CATCH_UP_CTES = `due as (
       select w.id, w.event_at, w.receiver_id,
              row_number() over (partition by w.receiver_id order by w.created_at, w.id) as n
       from receiver rc join deliveries w on w.receiver_id = rc.id
       where rc.failure_count > 0 and w.status = 'pending' and w.next_attempt_at > now()
         and not w.caught_up and ${leaseFree('w')}
     ), drained as (
       update deliveries d set next_attempt_at = now() + due.n * interval '1 microsecond',
         caught_up = true
       from due where d.id = due.id and d.event_at = due.event_at
       returning d.receiver_id
     ), caught_up as (
       insert into activity (id, brand_id, action, actor_member_id, actor_email, subject_id, summary)
       select o.activity_id, rc.brand_id, 'deliveries.caught_up', '', 'service', rc.id,
         left(rc.label || ': answered 2xx again after ' || rc.failure_count
              || ' failed attempts; ' || n.due || ' waiting deliveries are due now', 300)
       from (select receiver_id, count(*) as due from drained group by receiver_id) n
       join receiver rc on rc.id = n.receiver_id
       join outcome o on o.receiver_id = n.receiver_id
     )`;

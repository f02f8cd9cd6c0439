import { rfc3339, type Pool } from '@brand/shared/db';
import type { DeliveryStatusName } from '../claim/claimRepo';
import { selectAttempts, type AttemptRow } from '../log/deliveryRepo';

/** A stream's delivery as its page shows it: the run of positions it carries, or a test. */
export interface StreamDeliveryRow {
  id: string;
  test: boolean;
  status: DeliveryStatusName;
  attempts: number;
  attempts_in_round: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
  /** {"from","through"} of a run; the test entry of a test. */
  object_json: string;
  attempt_log: AttemptRow[];
}

/**
 * A stream's last deliveries, newest first, each with its attempts: the walk of
 * deliveries_receiver ((receiver_id, created_at desc, id desc)) for `limit` rows, and their
 * events by key for the runs they carry.
 */
export async function selectStreamDeliveries(
  pool: Pool,
  streamId: string,
  limit: number,
): Promise<StreamDeliveryRow[]> {
  const res = await pool.query<Omit<StreamDeliveryRow, 'attempt_log'>>(
    `select d.id, d.test, d.status, d.attempts, d.attempts - d.round_start as attempts_in_round,
       case when d.status = 'pending' then ${rfc3339('d.next_attempt_at')} end as next_attempt_at,
       d.last_status, d.last_error, ${rfc3339('d.created_at')} as created_at,
       ${rfc3339('d.completed_at')} as completed_at, e.object_json
     from deliveries d
     cross join lateral (
       select object_json from events e where e.id = d.event_id and e.created_at = d.event_at
     ) e
     where d.receiver_id = $1
     order by d.created_at desc, d.id desc limit $2`,
    [streamId, limit],
  );
  const attempts = await selectAttempts(
    pool,
    res.rows.map((r) => r.id),
  );
  return res.rows.map((r) => ({
    ...r,
    attempt_log: attempts.filter((a) => a.delivery_id === r.id),
  }));
}

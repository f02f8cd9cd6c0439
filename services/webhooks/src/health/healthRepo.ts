import type { Pool, PoolClient } from '@brand/shared/db';
import { LATENCY_SLOTS } from './latencyHistogram';

type Db = Pool | PoolClient;

/** Width of one stored health bucket. */
export const HEALTH_BUCKET_SECONDS = 300;

/** The start of the stored bucket `at` counts into (as healthUpsertSql computes it). */
export function healthBucketStart(at: Date): Date {
  const seconds = Math.floor(at.getTime() / 1000 / HEALTH_BUCKET_SECONDS) * HEALTH_BUCKET_SECONDS;
  return new Date(seconds * 1000);
}

/** A latency histogram with nothing counted yet (one slot per bound and the overflow). */
export function emptyLatency(): number[] {
  return new Array<number>(LATENCY_SLOTS).fill(0);
}

/** The placeholders (e.g. "$7") of an attempt's values inside a larger statement. */
export interface HealthParams {
  /** A FROM clause giving one row per count to make, e.g. of a CTE that locked the receiver. */
  from: string;
  /** The receiver's id, an expression over `from`. */
  receiverId: string;
  /** timestamptz: when the attempt started. */
  at: string;
  ok: string;
  /** text, null on success: the failure's health class (healthClass). */
  failureClass: string;
  /** int, null when no response came: the latency slot (latencySlot). */
  slot: string;
  /** boolean: a test delivery's attempt is not counted. */
  test: string;
}

/**
 * SQL that counts one attempt into its receiver's 5-minute health bucket (insert or add),
 * for use as a CTE of the statement recording the attempt, so the count commits with it
 * and costs no round trip of its own. Test deliveries are skipped. `from` orders the locks:
 * given a CTE that locked the receiver row, the bucket is locked after it, as everywhere.
 */
export function healthUpsertSql(p: HealthParams): string {
  const slot = `coalesce(${p.slot}::int, 1)`;
  const cls = `${p.failureClass}::text`;
  return `insert into receiver_health as h (receiver_id, bucket_start, attempts, succeeded, failures, latency)
    select ${p.receiverId}::text,
      to_timestamp(floor(extract(epoch from ${p.at}::timestamptz) / ${HEALTH_BUCKET_SECONDS}) * ${HEALTH_BUCKET_SECONDS}),
      1, case when ${p.ok}::boolean then 1 else 0 end,
      case when ${cls} is null then '{}'::jsonb else jsonb_build_object(${cls}, 1) end,
      array(select case when i = ${p.slot}::int then 1 else 0 end
            from generate_series(1, ${LATENCY_SLOTS}) i)
    ${p.from}
    where not ${p.test}::boolean
    on conflict (receiver_id, bucket_start) do update set
      attempts = h.attempts + 1,
      succeeded = h.succeeded + excluded.succeeded,
      failures = case when ${cls} is null then h.failures
                      else h.failures || jsonb_build_object(${cls}, coalesce((h.failures ->> ${cls})::int, 0) + 1) end,
      latency[${slot}] = h.latency[${slot}] + case when ${p.slot}::int is null then 0 else 1 end`;
}

/**
 * The failure classes of receiver health: a status is grouped by its class (429 stands
 * apart: the receiver asks to slow down), a failure without a response keeps its own
 * class; undefined on success.
 */
export function healthClass(r: {
  ok: boolean;
  status: number | undefined;
  errorClass: string | undefined;
}): string | undefined {
  if (r.ok) return undefined;
  if (r.status === undefined) return r.errorClass ?? 'connection_error';
  if (r.status === 429) return 'http_429';
  if (r.status >= 300 && r.status < 400) return 'redirect';
  if (r.status >= 400 && r.status < 500) return 'http_4xx';
  if (r.status >= 500 && r.status < 600) return 'http_5xx';
  return 'http_other';
}

export interface HealthRow {
  /** Unix seconds of the bucket's start. */
  start: number;
  attempts: number;
  succeeded: number;
  failures: Record<string, number>;
  latency: number[];
}

/**
 * A receiver's health buckets since `from` (primary-key range: at most 2,016 rows for 7
 * days, whatever the traffic), oldest first.
 */
export async function selectHealthRows(
  db: Db,
  receiverId: string,
  from: Date,
): Promise<HealthRow[]> {
  const res = await db.query<HealthRow>(
    `select extract(epoch from bucket_start)::int as start, attempts, succeeded, failures, latency
     from receiver_health where receiver_id = $1 and bucket_start >= $2
     order by bucket_start`,
    [receiverId, from],
  );
  return res.rows;
}

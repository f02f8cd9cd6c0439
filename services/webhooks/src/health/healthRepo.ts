import { unseenArray, type Pool, type PoolClient } from '@brand/shared/db';
import { emptyLatency } from './latencyHistogram';

type Db = Pool | PoolClient;

/** Width of one stored health bucket. */
const HEALTH_BUCKET_SECONDS = 300;

/** The start of the stored bucket an attempt started at `at` counts into. */
export function healthBucketStart(at: Date): Date {
  const seconds = Math.floor(at.getTime() / 1000 / HEALTH_BUCKET_SECONDS) * HEALTH_BUCKET_SECONDS;
  return new Date(seconds * 1000);
}

/** What one attempt adds to its receiver's health (the fields of an AttemptRecord it reads). */
export interface HealthSample {
  receiverId: string;
  startedAt: Date;
  /** A test delivery's attempt is not counted. */
  test: boolean;
  /** Null when the attempt succeeded. */
  errorClass: string | null;
  /** The failure's health class (healthClass); null on success. */
  healthClass: string | null;
  /** The latency slot when a response came (latencySlot); null otherwise. */
  latencySlot: number | null;
}

/** One receiver's bucket as a statement adds to it. */
interface HealthCount {
  receiverId: string;
  bucketStart: Date;
  attempts: number;
  succeeded: number;
  failures: Record<string, number>;
  latency: number[];
}

/**
 * The values of healthUpsertSql's six placeholders for `samples`: their counts summed per
 * receiver and bucket (an upsert may touch a row only once per statement), tests left out.
 */
export function healthValues(samples: readonly HealthSample[]): unknown[] {
  const counts = new Map<string, HealthCount>();
  for (const a of samples) {
    if (a.test) continue;
    const bucketStart = healthBucketStart(a.startedAt);
    const key = `${a.receiverId} ${bucketStart.getTime()}`;
    let c = counts.get(key);
    if (!c) {
      c = {
        receiverId: a.receiverId,
        bucketStart,
        attempts: 0,
        succeeded: 0,
        failures: {},
        latency: emptyLatency(),
      };
      counts.set(key, c);
    }
    c.attempts += 1;
    if (a.errorClass === null) c.succeeded += 1;
    if (a.healthClass !== null) c.failures[a.healthClass] = (c.failures[a.healthClass] ?? 0) + 1;
    if (a.latencySlot !== null) c.latency[a.latencySlot - 1]! += 1;
  }
  const all = [...counts.values()];
  return [
    all.map((c) => c.receiverId),
    all.map((c) => c.bucketStart),
    all.map((c) => c.attempts),
    all.map((c) => c.succeeded),
    all.map((c) => JSON.stringify(c.failures)),
    all.map((c) => `{${c.latency.join(',')}}`),
  ];
}

/**
 * SQL that adds attempts' counts (healthValues, at placeholders $first..$first+5) into their
 * receivers' 5-minute health buckets (insert or add), as a CTE of the statement recording
 * the attempts, so the counts commit with them and cost no round trip of their own.
 * `lockedReceivers` names the CTE that locked the receiver rows: the buckets are locked
 * after them, the order every writer keeps, and a receiver removed meanwhile gets no count.
 */
export function healthUpsertSql(first: number, lockedReceivers: string): string {
  // the counts' number hidden from the planner: one generic plan for any batch (unseenArray)
  const $ = (k: number, type: string) => unseenArray(first + k, type);
  return `insert into receiver_health as h (receiver_id, bucket_start, attempts, succeeded,
      failures, latency)
    select c.receiver_id, c.bucket_start, c.attempts, c.succeeded, c.failures, c.latency::int[]
    from unnest(${$(0, 'text[]')}, ${$(1, 'timestamptz[]')}, ${$(2, 'int[]')}, ${$(3, 'int[]')},
      ${$(4, 'jsonb[]')}, ${$(5, 'text[]')})
      as c(receiver_id, bucket_start, attempts, succeeded, failures, latency)
    join ${lockedReceivers} locked on locked.id = c.receiver_id
    on conflict (receiver_id, bucket_start) do update set
      attempts = h.attempts + excluded.attempts,
      succeeded = h.succeeded + excluded.succeeded,
      failures = h.failures || (
        select coalesce(jsonb_object_agg(f.key,
                          f.value::int + coalesce((h.failures ->> f.key)::int, 0)), '{}')
        from jsonb_each_text(excluded.failures) f),
      latency = array(select h.latency[k] + excluded.latency[k]
                      from generate_subscripts(h.latency, 1) k order by k)`;
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

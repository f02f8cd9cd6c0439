import type { Pool, PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { rfc3339, unseenArray, withTransaction } from '@brand/shared/db';
import type { StoredTraceContext } from '@brand/shared/telemetry';
import { leaseFor, leaseFree, leaseHeld } from './lease';

type Db = Pool | PoolClient;

/** A delivery's state: pending until an attempt succeeds or the retries run out. */
export type DeliveryStatusName = 'pending' | 'succeeded' | 'failed';

/**
 * What a worker needs to deliver, read with each claim (claimDueDeliveries): the receiver's
 * URL and sealed secrets, the current one and a pending rotation's new one with its switch
 * time, to sign with the one in force (signingSecret.ts).
 */
export interface ReceiverTarget {
  id: string;
  url: string;
  enabled: boolean;
  secret_ciphertext: Buffer;
  secret_key_id: string;
  secret_version: number;
  pending_secret_ciphertext: Buffer | null;
  pending_secret_key_id: string | null;
  rotation_switch_at: Date | null;
  /** 'webhook', or an audit stream's kind (issue 63): the worker sends a stream's runs its way. */
  kind: 'webhook' | 'https' | 'splunk_hec' | 'datadog';
  /**
   * Its failed attempts in a row as the claim read them: a 2xx now makes its waiting
   * deliveries due (catch-up, attemptRepo.ts), which the worker then scans for at once.
   */
  failure_count: number;
}

/**
 * A claimed delivery with everything needed to build, sign and send it (its receiver's
 * address and secrets as the claim read them: no query of its own before the send), and the
 * trace context its event was stored in (the attempt's span continues it).
 */
export interface ClaimedDelivery extends StoredTraceContext {
  id: string;
  receiver_id: string;
  attempts: number;
  round_start: number;
  event_id: string;
  event_type: EventTypeName;
  event_created_at: string;
  brand_id: string;
  object_json: string;
  test: boolean;
  /** Set on a Test signed with a rotation's new secret: the secret version to sign with. */
  secret_version: number | null;
  target: ReceiverTarget;
}

/** A claim's row as PostgreSQL returns it: the receiver's columns prefixed `target_`. */
type ClaimRow = Omit<ClaimedDelivery, 'target'> & {
  [K in keyof ReceiverTarget as `target_${K}`]: ReceiverTarget[K];
};

/** Which receivers one claim may take deliveries of, and how many of each. */
export interface ClaimScope {
  /** Deliveries to claim at most. */
  limit: number;
  /** Due rows of one receiver per claim at most (DELIVERY_PER_RECEIVER_CONCURRENCY). */
  perReceiver: number;
  /** Receivers with attempts in this worker, and how many more each may take (0: none). */
  receiverRoom: Map<string, number>;
  /**
   * `only`: just these receivers, in this order (the slow and hanging lanes' claims: the one
   * that waited longest for a place first). `except`: every receiver with pending deliveries but
   * these (the shared budget's claim, which leaves slow and hanging ones out).
   */
  receivers: { only: string[] } | { except: string[] };
  leaseMs: number;
}

/**
 * The receivers a claim considers. With `except`, those with pending deliveries, found by a
 * skip scan of deliveries_pending_receiver (one index probe per such receiver), so a claim's
 * cost follows the number of active receivers, not the backlog (ranking every due delivery
 * took 16 ms at 10,000); with `only`, the list given, each with its place in it (`pos`).
 */
const ACTIVE_EXCEPT = `active as (
       select receiver_id from (
         with recursive pending as (
           (select receiver_id from deliveries where status = 'pending' order by receiver_id limit 1)
           union all
           select (select d.receiver_id from deliveries d
                   where d.status = 'pending' and d.receiver_id > p.receiver_id
                   order by d.receiver_id limit 1)
           from pending p where p.receiver_id is not null
         ) select receiver_id from pending
       ) p where receiver_id is not null and not (receiver_id = any(${unseenArray(2, 'text[]')}))
     )`;
const ACTIVE_ONLY = `active as (
       select receiver_id, pos
       from unnest(${unseenArray(2, 'text[]')}) with ordinality as a(receiver_id, pos)
     )`;

/**
 * The terms of every claim, written once: a delivery is claimable while it is pending, due and
 * not leased (or its lease ran out: its worker died). Both claims also require an enabled
 * receiver, and lock with FOR UPDATE SKIP LOCKED, so concurrent workers never take one row.
 */
const CLAIMABLE = `d.status = 'pending' and d.next_attempt_at <= now() and ${leaseFree('d')}`;

/**
 * The `locked` CTE of both claims: each row `keys` names (a FROM item of `id` and `event_at`)
 * found by its primary key alone, one lookup per key, locked with FOR UPDATE SKIP LOCKED, and
 * kept when CLAIMABLE on its latest version (as FOR UPDATE returns it) and its receiver is
 * enabled (a picked row that is not is left as it was, locked for the statement's moment). A
 * LATERAL subquery that locks is never flattened into a join, and its LIMIT (one row: the key
 * is the primary key) keeps the planner from pushing the terms into it. With the terms in the
 * lookup the planner could serve it from the pending index instead, and the statistics of a
 * week whose rows were all delivered when they were taken (the usual case) put a row or two
 * there: in a backlog a claim then read every pending row to lock the few it named (in S6's
 * burst 6,490 for 35, 5-40 ms a claim until the next analyze; issue 64).
 */
const lockedByKey = (keys: string): string => `locked as (
       select d.id, d.event_at
       from ${keys}
       cross join lateral (
         select d.id, d.event_at, d.receiver_id, d.status, d.next_attempt_at, d.lease_until
         from deliveries d where d.id = k.id and d.event_at = k.event_at
         limit 1 for update skip locked
       ) d
       join receivers r on r.id = d.receiver_id
       where ${CLAIMABLE} and r.enabled
     )`;

/**
 * The end of both claims: leases the rows of the `locked` CTE for `leaseMs` (the parameter
 * named) and returns each with its event and its receiver's target.
 */
const leaseLocked = (leaseMs: string): string => `
     update deliveries d set ${leaseFor(leaseMs)}
     from locked, events e, receivers r
     where d.id = locked.id and d.event_at = locked.event_at
       and e.id = d.event_id and e.created_at = d.event_at and r.id = d.receiver_id
     returning d.id, d.receiver_id, d.attempts, d.round_start, d.event_id, e.type as event_type,
       ${rfc3339('d.event_at')} as event_created_at, d.brand_id, e.object_json, e.test,
       d.secret_version, e.traceparent, e.tracestate,
       r.id as target_id, r.url as target_url, r.enabled as target_enabled,
       r.secret_ciphertext as target_secret_ciphertext, r.secret_key_id as target_secret_key_id,
       r.secret_version as target_secret_version,
       r.pending_secret_ciphertext as target_pending_secret_ciphertext,
       r.pending_secret_key_id as target_pending_secret_key_id,
       r.rotation_switch_at as target_rotation_switch_at,
       r.failure_count as target_failure_count, r.kind as target_kind`;

function toClaimed({
  target_id: id,
  target_url: url,
  target_enabled: enabled,
  target_secret_ciphertext: secret_ciphertext,
  target_secret_key_id: secret_key_id,
  target_secret_version: secret_version,
  target_pending_secret_ciphertext: pending_secret_ciphertext,
  target_pending_secret_key_id: pending_secret_key_id,
  target_rotation_switch_at: rotation_switch_at,
  target_failure_count: failure_count,
  target_kind: kind,
  ...delivery
}: ClaimRow): ClaimedDelivery {
  return {
    ...delivery,
    target: {
      id,
      url,
      enabled,
      secret_ciphertext,
      secret_key_id,
      secret_version,
      pending_secret_ciphertext,
      pending_secret_key_id,
      rotation_switch_at,
      failure_count,
      kind,
    },
  };
}

/**
 * The scan's plan setting, in force for its statement alone (SET LOCAL in its transaction): read
 * the pending index in its order rather than read it whole and sort. The receivers' skip scan
 * and each receiver's first due rows are ordered reads of deliveries_pending_receiver, one per
 * partition, merged. The statistics of a week taken while its deliveries were all delivered
 * (the usual case; production's autovacuum takes them again only after a tenth of the week
 * changed) say the pending index is empty, and an empty partition (next week's, the default)
 * reads cheaper whole than through its index, so PostgreSQL read every pending entry of the week
 * and sorted it, for each step: a scan's cost grew with the backlog times the receivers in it
 * (10,009 pages and 10 ms a claim over a backlog of 5,000 for 10 receivers, against 453 pages
 * and a millisecond ordered; delivery.claimByKeyBacklog.test.ts). A sort the statement cannot
 * do without (its candidates' round-robin order) is still made, but a plan with a disabled sort
 * is costed far above jit_above_cost, and JIT compiled the statement at every claim (0.7 s):
 * JIT is off for it too, as a claim of a dozen rows has nothing to gain from it.
 */
export const SCAN_PLAN_SETTING = `select set_config('enable_sort', 'off', true),
  set_config('jit', 'off', true)`;

/**
 * Claims up to `limit` due deliveries for this worker: pending, due, not leased (or the
 * lease expired: its worker died), of an enabled receiver in the scope, each receiver's
 * oldest first and at most its room (`receiverRoom`, else `perReceiver`); candidates are
 * taken round-robin across receivers (fairness: deliveryLanes.ts): every receiver's first,
 * then every receiver's second, each round by the age of the deliveries with `except`, and in
 * the order of the list with `only` (the slow and hanging lanes': by age, the backlog of the
 * receivers that hold their places longest took each place that freed; a hostile review,
 * 2026-11-30). Rows are locked with FOR UPDATE SKIP LOCKED and leased for `leaseMs`, so
 * concurrent workers never claim the same row.
 * The lease is the only column the claim writes, no index holds it, and the partitions leave
 * room in each page (fillfactor, historyPartitions.ts), so the claim's update can be a HOT one.
 * The statement runs in a transaction of its own under SCAN_PLAN_SETTING, so its searches read
 * the pending index in order whatever the statistics say; the rows it picked are locked by key
 * (lockedByKey). The receivers it names and their room are hidden from the planner
 * (unseenArray): seen, they made the slow lane's claim planned again at every scan
 * (statements.oneGenericPlan.test.ts), and a custom plan of the scan took 2.5 ms of planning for
 * 1.7 ms of work over the backlog test's deliveries.
 */
export function claimDueDeliveries(pool: Pool, scope: ClaimScope): Promise<ClaimedDelivery[]> {
  return withTransaction(pool, (client) => claimDueDeliveriesInTransaction(client, scope));
}

/**
 * claimDueDeliveries on a client whose transaction the caller holds and ends (its commit makes
 * the leases visible, a rollback leaves the rows due: S9 measures claims so). SCAN_PLAN_SETTING
 * stays in force for the rest of that transaction.
 */
export async function claimDueDeliveriesInTransaction(
  client: PoolClient,
  scope: ClaimScope,
): Promise<ClaimedDelivery[]> {
  const only = 'only' in scope.receivers;
  const named = 'only' in scope.receivers ? scope.receivers.only : scope.receivers.except;
  const room = [...scope.receiverRoom];
  await client.query(SCAN_PLAN_SETTING);
  const res = await client.query<ClaimRow>({
    name: only ? 'webhooks.claim-due-deliveries-of' : 'webhooks.claim-due-deliveries',
    text: `with ${only ? ACTIVE_ONLY : ACTIVE_EXCEPT}, room as (
       select * from unnest(${unseenArray(5, 'text[]')}, ${unseenArray(6, 'int[]')})
         as room(receiver_id, free)
     ), candidates as (
       select c.id, c.event_at from active a
       join receivers r on r.id = a.receiver_id
       left join room on room.receiver_id = a.receiver_id
       cross join lateral (
         select d.id, d.event_at, d.next_attempt_at,
                row_number() over (order by d.next_attempt_at, d.id) as rn
         from deliveries d
         where d.receiver_id = a.receiver_id and ${CLAIMABLE}
         order by d.next_attempt_at, d.id
         limit coalesce(room.free, $3)
       ) c
       where r.enabled
       order by c.rn, ${only ? 'a.pos' : 'c.next_attempt_at'} limit $1
     ), ${lockedByKey('candidates k')}
     ${leaseLocked('$4')}`,
    values: [
      scope.limit,
      named,
      scope.perReceiver,
      scope.leaseMs,
      room.map(([id]) => id),
      room.map(([, free]) => free),
    ],
  });
  return res.rows.map(toClaimed);
}

/**
 * Claims deliveries named by primary key (the feed from this process's consumer,
 * deliveryFeed.ts) on the same terms as claimDueDeliveries: pending, due, not leased (or the
 * lease expired), of an enabled receiver, locked with FOR UPDATE SKIP LOCKED and leased for
 * `leaseMs`. A named delivery that another worker holds, that was delivered, or that is not
 * due is not returned. Each row is found by its key (lockedByKey), so the cost is the rows
 * named, whatever the pending index holds. The keys' number is hidden from the planner
 * (unseenArray): one generic plan serves every batch, where the number seen made it plan each
 * claim of a delivery or two over 10,000 receivers again (1.6 ms of planning each).
 */
export async function claimFedDeliveries(
  db: Db,
  fed: ReadonlyArray<{ id: string; eventAt: string }>,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  if (fed.length === 0) return [];
  const res = await db.query<ClaimRow>({
    name: 'webhooks.claim-fed-deliveries',
    text: `with ${lockedByKey(
      `unnest(${unseenArray(1, 'text[]')}, ${unseenArray(2, 'timestamptz[]')}) as k(id, event_at)`,
    )} ${leaseLocked('$3')}`,
    values: [fed.map((d) => d.id), fed.map((d) => d.eventAt), leaseMs],
  });
  return res.rows.map(toClaimed);
}

/**
 * Pending deliveries by state, for /metrics: leased to a worker now, waiting for a
 * scheduled (re)try, or due and waiting for a free worker slot. Reads only pending rows
 * (the partial index deliveries_due).
 */
export async function selectPendingDepth(
  db: Db,
): Promise<{ due: number; in_flight: number; retry_scheduled: number }> {
  const res = await db.query<{ due: number; in_flight: number; retry_scheduled: number }>(
    `select
       count(*) filter (where ${leaseHeld()})::int as in_flight,
       count(*) filter (where ${leaseFree()}
                          and next_attempt_at > now())::int as retry_scheduled,
       count(*) filter (where ${leaseFree()}
                          and next_attempt_at <= now())::int as due
     from deliveries where status = 'pending'`,
  );
  return res.rows[0]!;
}

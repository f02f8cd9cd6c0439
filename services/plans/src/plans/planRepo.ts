import { rfc3339, type Pool, type PoolClient } from '@brand/shared/db';
import type { CampaignTypeName, PlanStatusName } from '@brand/shared/enums';
import type { PlanInput } from '@brand/shared/plans';

export interface PlanRow {
  id: string;
  brand_id: string;
  request_id: string;
  input_hash: string;
  status: PlanStatusName;
  campaign_type: CampaignTypeName;
  title: string;
  goal: string;
  planned_for: string;
  review_on: string;
  /** Integer centavos; bigint read as float8, exact below 2^53 (the maximum is 1e10). */
  planning_budget_amount: number;
  summary: string | null;
  brief: string | null;
  requirements: string[];
  platforms: string[];
  notes: string | null;
  created_at: string;
  updated_at: string;
}

type Db = Pool | PoolClient;

const PLAN_COLUMNS = `id, brand_id, request_id::text as request_id, input_hash, status, campaign_type,
  title, goal, planned_for::text as planned_for, review_on::text as review_on,
  planning_budget_amount::float8 as planning_budget_amount, summary, brief, requirements,
  platforms, notes, ${rfc3339('created_at')} as created_at, ${rfc3339('updated_at')} as updated_at`;

/**
 * The plan a brand prepared under a request_id, if any. A named statement: it answers every
 * replay (an agent's retry), so each connection parses and plans it once.
 */
export async function selectPlanByRequest(
  db: Db,
  brandId: string,
  requestId: string,
): Promise<PlanRow | undefined> {
  const r = await db.query<PlanRow>({
    name: 'plans.select-by-request',
    text: `select ${PLAN_COLUMNS} from plans where brand_id = $1 and request_id = $2`,
    values: [brandId, requestId],
  });
  return r.rows[0];
}

/**
 * Serialises plan creation per brand until the transaction ends: the pending count and the
 * insert that follows cannot interleave with another request of the same brand, so the
 * limit holds exactly under concurrency. The wait is bounded by `waitMs` (lock_timeout, set
 * local: it bounds the rest of this transaction's lock waits too, none of which should wait): a waiter holds a pooled connection, so an unbounded wait let one
 * brand's requests take the whole pool and other brands got 503. Past it, PostgreSQL fails
 * the statement with lock_not_available (55P03). Other brands are not blocked (a hash
 * collision between two brands only makes them wait for each other, as long as that).
 */
export async function lockBrandPlans(
  client: PoolClient,
  brandId: string,
  waitMs: number,
): Promise<void> {
  await client.query(`select set_config('lock_timeout', $1, true)`, [
    `${Math.max(1, Math.ceil(waitMs))}ms`,
  ]);
  await client.query(`select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`plans:${brandId}`]);
}

export async function countPendingPlans(db: Db, brandId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    `select count(*)::int as n from plans where brand_id = $1 and status = 'pending'`,
    [brandId],
  );
  return r.rows[0]!.n;
}

/**
 * Inserts a pending plan. Returns undefined when (brand_id, request_id) already exists: the
 * unique constraint is the last word on exactly-once, even without the brand lock.
 */
export async function insertPlan(
  db: Db,
  plan: { id: string; brandId: string; inputHash: string; input: PlanInput },
): Promise<PlanRow | undefined> {
  const i = plan.input;
  const r = await db.query<PlanRow>(
    `insert into plans (id, brand_id, request_id, input_hash, campaign_type, title, goal,
       planned_for, review_on, planning_budget_amount, summary, brief, requirements, platforms, notes)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     on conflict (brand_id, request_id) do nothing
     returning ${PLAN_COLUMNS}`,
    [
      plan.id,
      plan.brandId,
      i.request_id,
      plan.inputHash,
      i.campaign_type,
      i.title,
      i.goal,
      i.planned_for,
      i.review_on,
      i.planning_budget_amount,
      i.summary ?? null,
      i.brief ?? null,
      i.requirements ?? [],
      i.platforms ?? [],
      i.notes ?? null,
    ],
  );
  return r.rows[0];
}

export async function selectPlan(db: Db, id: string): Promise<PlanRow | undefined> {
  const r = await db.query<PlanRow>(`select ${PLAN_COLUMNS} from plans where id = $1`, [id]);
  return r.rows[0];
}

/** Where a page starts: strictly after this (created_at, id) in newest-first order. */
export interface PlanPosition {
  created_at: string;
  id: string;
}

/** One page of a brand's plans, newest first, optionally of one status. */
export async function selectPlans(
  db: Db,
  q: { brandId: string; status?: PlanStatusName; limit: number; after?: PlanPosition },
): Promise<PlanRow[]> {
  const r = await db.query<PlanRow>(
    `select ${PLAN_COLUMNS} from plans
     where brand_id = $1
       and ($2::text is null or status = $2)
       and ($3::timestamptz is null or (plans.created_at, plans.id) < ($3::timestamptz, $4::text))
     order by plans.created_at desc, plans.id desc
     limit $5`,
    [q.brandId, q.status ?? null, q.after?.created_at ?? null, q.after?.id ?? null, q.limit],
  );
  return r.rows;
}

/**
 * Moves a pending plan to `to` and stamps the matching time column. Returns undefined when
 * the plan does not exist or is no longer pending (the caller reads it to say which).
 */
export async function finishPendingPlan(
  db: Db,
  id: string,
  to: 'cancelled' | 'completed',
): Promise<PlanRow | undefined> {
  const stamp = to === 'cancelled' ? 'cancelled_at' : 'completed_at';
  const r = await db.query<PlanRow>(
    `update plans set status = $2, ${stamp} = now(), updated_at = now()
     where id = $1 and status = 'pending'
     returning ${PLAN_COLUMNS}`,
    [id, to],
  );
  return r.rows[0];
}

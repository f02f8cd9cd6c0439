import pg from 'pg';

// What the statement-plan tests share (feed.statements, delivery.claimByKey.plan): a pool of
// one connection, as each of the service's connections prepares a statement once, and the
// check that PostgreSQL settled on the statement's generic plan rather than planning it again
// at every call.

/** A node of EXPLAIN (FORMAT JSON)'s plan; ANALYZE adds the actual figures. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan, the root first. */
export const planNodes = (plan: PlanNode): PlanNode[] => [
  plan,
  ...(plan.Plans ?? []).flatMap(planNodes),
];

/** A pool of one connection to `url` with the service's search path. */
export const onePreparingConnection = (url: string): pg.Pool =>
  new pg.Pool({ connectionString: url, max: 1, options: '-c search_path=webhooks' });

/**
 * The one prepared statement whose name is like `nameLike` on this connection, after it was
 * run at least eight times: PostgreSQL tries five custom plans, then keeps the generic one
 * only when it looks no dearer; the rest must have used it.
 */
export async function expectGenericPlan(
  client: pg.PoolClient,
  nameLike: string,
): Promise<{ name: string; statement: string }> {
  const { rows } = await client.query<{
    name: string;
    generic_plans: string;
    custom_plans: string;
    statement: string;
  }>(
    `select name, generic_plans, custom_plans, statement from pg_prepared_statements
     where name like $1`,
    [nameLike],
  );
  expect(rows).toHaveLength(1);
  const row = rows[0]!;
  expect(Number(row.custom_plans)).toBeLessThanOrEqual(5);
  expect(Number(row.generic_plans)).toBeGreaterThanOrEqual(3);
  return row;
}

/**
 * SQL that renders a timestamptz expression as RFC 3339 in UTC with all six fractional
 * digits. PostgreSQL keeps microseconds and a JS Date would drop them, so timestamps
 * leave the database as text and never pass through Date: a cursor then carries the exact
 * value and no row is skipped or repeated.
 */
export function rfc3339(expression: string): string {
  return `to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * The array parameter `$n` (of `type`, e.g. `text[]`) behind a scalar subquery, so the planner
 * takes its length as unknown in a custom plan as in the generic one. Given bare, a custom plan
 * reads the array's real length; in a statement taking one or two rows among many receivers
 * that made every custom plan look cheaper than the generic one, and PostgreSQL
 * (plan_cache_mode auto) planned the prepared statement again at each execution: the webhooks
 * successes' statement spent 1.9 ms planning for 0.8 ms executing over 10,000 receivers (issue
 * 64, S10). For arrays that carry a batch's rows or keys, whose length never should change the plan.
 */
export function unseenArray(n: number, type: string): string {
  return `(select $${n}::${type})::${type}`;
}

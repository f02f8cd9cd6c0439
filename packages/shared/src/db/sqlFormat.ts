/**
 * SQL that renders a timestamptz expression as RFC 3339 in UTC with all six fractional
 * digits. PostgreSQL keeps microseconds and a JS Date would drop them, so timestamps
 * leave the database as text and never pass through Date: a cursor then carries the exact
 * value and no row is skipped or repeated.
 */
export function rfc3339(expression: string): string {
  return `to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

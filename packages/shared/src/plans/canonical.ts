import { createHash } from 'node:crypto';
import { toPlanInputBody, type PlanInput } from './input';

/** JSON with object keys sorted at every level; arrays keep their order. */
function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The canonical JSON of a parsed input: sorted keys, no insignificant whitespace, the
 * budget as a two-decimal string. Field order, `25000.5` vs `"25000.50"`, a blank optional
 * field vs an absent one and an upper- vs lower-case request_id all give the same text, so
 * they are the same request for idempotency.
 */
export function canonicalJson(input: PlanInput): string {
  return stableStringify(toPlanInputBody(input));
}

/** Lower-case hex SHA-256 of canonicalJson(input): what the plans service stores and compares. */
export function canonicalHash(input: PlanInput): string {
  return createHash('sha256').update(canonicalJson(input), 'utf8').digest('hex');
}

import { UsageSurface, type GetUsageResponse, type KeyUsage } from '@brand/proto/access/v1/usage';
import { gatewayCodesOfStatus } from '@brand/shared/errors';

/** The outcome classes the chart stacks, bottom to top, with their CSS class and words. */
export const OUTCOME_CLASSES = [
  { id: '2xx', label: 'succeeded (2xx)' },
  { id: '304', label: 'not modified (304)' },
  { id: '4xx', label: 'refused (4xx)' },
  { id: '429', label: 'rate limited (429)' },
  { id: '5xx', label: 'failed (5xx)' },
] as const;
type OutcomeClass = (typeof OUTCOME_CLASSES)[number]['id'];

/** "4xx:invalid_key" → "4xx"; the others are their own class. */
export function classOf(outcome: string): OutcomeClass {
  return outcome.startsWith('4xx') ? '4xx' : (outcome as OutcomeClass);
}

export type Surface = 'rest' | 'assistant';
export const surfaceOf = (s: UsageSurface): Surface =>
  s === UsageSurface.USAGE_SURFACE_ASSISTANT ? 'assistant' : 'rest';

/** One slice of the chart: its start and its counts per class. */
export interface Slice {
  start: string;
  counts: Record<OutcomeClass, number>;
}

const emptyCounts = (): Record<OutcomeClass, number> => ({
  '2xx': 0,
  '304': 0,
  '4xx': 0,
  '429': 0,
  '5xx': 0,
});

/**
 * Every slice of the window for one surface, oldest first, zeros included (the response
 * holds only slices with requests), so the bars sit at their times.
 */
export function slicesOf(usage: GetUsageResponse, surface: Surface): Slice[] {
  const step = usage.bucket_seconds * 1000;
  const first = Date.parse(usage.from);
  const count = usage.bucket_seconds === 60 ? 24 * 60 : 7 * 24;
  const slices: Slice[] = Array.from({ length: count }, (_, i) => ({
    start: new Date(first + i * step).toISOString(),
    counts: emptyCounts(),
  }));
  for (const b of usage.buckets) {
    if (surfaceOf(b.surface) !== surface) continue;
    const i = Math.round((Date.parse(b.start) - first) / step);
    const slice = slices[i];
    if (slice) slice.counts[classOf(b.outcome)] += b.count;
  }
  return slices;
}

/**
 * The last 24 hours of a 7-day usage answer (per hour), REST and assistant together: the
 * overview's small chart of the brand's requests.
 */
export function lastDaySlices(usage: GetUsageResponse): Slice[] {
  const rest = slicesOf(usage, 'rest').slice(-24);
  const assistant = slicesOf(usage, 'assistant').slice(-24);
  return rest.map((s, i) => ({
    start: s.start,
    counts: Object.fromEntries(
      OUTCOME_CLASSES.map((c) => [c.id, s.counts[c.id] + (assistant[i]?.counts[c.id] ?? 0)]),
    ) as Record<OutcomeClass, number>,
  }));
}

/** A key's row of the "which key spends the budget" table. */
export interface KeyRow {
  keyId: string;
  name: string;
  prefix: string;
  rest: number;
  assistant: number;
  byClass: Record<OutcomeClass, number>;
  total: number;
}

/** The keys' totals over the window, biggest spender first. */
export function keyRows(keys: KeyUsage[]): KeyRow[] {
  const rows = new Map<string, KeyRow>();
  for (const k of keys) {
    let row = rows.get(k.key_id);
    if (!row) {
      row = {
        keyId: k.key_id,
        name: k.name,
        prefix: k.prefix,
        rest: 0,
        assistant: 0,
        byClass: emptyCounts(),
        total: 0,
      };
      rows.set(k.key_id, row);
    }
    row[surfaceOf(k.surface)] += k.count;
    row.byClass[classOf(k.outcome)] += k.count;
    row.total += k.count;
  }
  return [...rows.values()].sort((a, b) => b.total - a.total);
}

/**
 * The code of a refusal outcome: "4xx:<code>" carries it; "429" (counted apart, as the budget
 * spent) is the code the error table answers 429 with, rate_limited. Others are no refusal.
 */
export function refusalCodeOf(outcome: string): string | undefined {
  if (outcome.startsWith('4xx:')) return outcome.slice(4);
  return outcome === '429' ? gatewayCodesOfStatus(429)[0] : undefined;
}

/** The 4xx counts by error code over the window (429 included), most frequent first. */
export function refusalsByCode(keys: KeyUsage[]): [string, number][] {
  const codes = new Map<string, number>();
  for (const k of keys) {
    const code = refusalCodeOf(k.outcome);
    if (code === undefined) continue;
    codes.set(code, (codes.get(code) ?? 0) + k.count);
  }
  return [...codes.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

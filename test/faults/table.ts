import type { FaultResult } from './verdict';

const COLUMNS: Array<[string, (r: FaultResult) => string]> = [
  ['fault', (r) => r.fault],
  ['requests', (r) => String(r.requests)],
  ['5xx other than 503', (r) => String(r.bad5xx)],
  ['503 + Retry-After', (r) => String(r.unavailable)],
  ['no answer', (r) => String(r.unanswered)],
  ['lost plans', (r) => String(r.lostPlans)],
  ['lost events', (r) => String(r.lostEvents)],
  ['duplicates', (r) => String(r.duplicates)],
  ['rate limit (max/60 s)', (r) => `${r.probeMaxPerWindow}/${r.probeBudget}`],
  [
    'recovery s',
    (r) => (Number.isFinite(r.recoverySeconds) ? r.recoverySeconds.toFixed(1) : 'never'),
  ],
];

/** The results as a Markdown table (RELIABILITY.md carries one run of it). */
export function formatTable(results: FaultResult[]): string {
  const cells = [COLUMNS.map(([h]) => h), ...results.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(cells[0]!),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

#!/usr/bin/env node
// Medians with min and max over several `npm run bench` results, for BENCHMARKS.md.
// Usage: node scripts/bench/aggregate.mjs run1.json run2.json ... (copies of
// .local/bench/last.json). Prints one Markdown row per metric of the bench's table:
// value, baseline and ratio as "median (min-max)".
import { readFileSync } from 'node:fs';

const runs = process.argv.slice(2).map((f) => JSON.parse(readFileSync(f, 'utf8')));
if (runs.length === 0) {
  console.error('usage: aggregate.mjs <last.json> ...');
  process.exit(2);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) =>
  Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
const cell = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (v.length === 0) return '';
  return v.length === 1
    ? fmt(v[0])
    : `${fmt(median(v))} (${fmt(Math.min(...v))}–${fmt(Math.max(...v))})`;
};
console.log(`${runs.length} runs: ${runs.map((r) => `${r.commit} ${r.finishedAt}`).join('; ')}`);
console.log('| metric | value | baseline | ratio | target | passed |');
console.log('|---|---|---|---|---|---|');
// rows by metric name: a run where a scenario did not run simply lacks its rows
const metrics = [...new Set(runs.flatMap((r) => r.table.map((row) => row.metric)))];
for (const metric of metrics) {
  const rows = runs.flatMap((r) => r.table.filter((row) => row.metric === metric));
  const row = rows[0];
  const passes = rows.filter((r) => r.pass === true).length;
  const judged = rows.filter((r) => r.pass !== undefined).length;
  console.log(
    `| ${row.metric} | ${cell(rows.map((r) => r.value))} | ${cell(rows.map((r) => r.baseline))} | ${cell(rows.map((r) => r.ratio))} | ${row.target} | ${judged ? `${passes}/${judged}` : ''} |`,
  );
}

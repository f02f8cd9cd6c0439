// The side-by-side table: every figure with its baseline, ratio and target; printed, and
// written with the raw results to .local/bench/last.json (smoke.json for a smoke run).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  OUT_DIR,
  REPO_ROOT,
  SETTINGS,
  TARGETS,
  elapsed,
  elapsedSeconds,
  round,
} from './settings.mjs';
import { manyReceiversRows, webhookRows } from './reportWebhooks.mjs';

const cpuSum = (arm) => Object.values(arm).reduce((a, b) => a + b, 0);
const ms = (x) => Math.max(x, 1); // autocannon reports whole milliseconds
/** The system's node processes' CPU of an arm (the issue-25 target compares it with B0's). */
const nodeCpu = (c) => c.gateway + c.records;

/** S1f, S2, S4 and the work counters (a walk-only run has none of them). */
function firstPageRows(r, { add, vs, atLeast, atMost }) {
  const T = TARGETS;
  const { s1f, s2 } = r;
  const [fb0, frest, ceil] = ['B0', 'REST', 'ceiling'].map((k) => s1f.arms[k]);
  const cf = s1f.cpuMsPerRequest;
  add('S1f B0 first page (req/s)', fb0.rps, undefined, undefined, undefined, '(the baseline)');
  vs('S1f REST first page (req/s)', frest.rps, fb0.rps, (x) => atLeast(x, T.s1fVsB0), '(vs B0)');
  add(
    'S1f REST p99 latency (ms)',
    frest.p99,
    fb0.p99,
    frest.p99 / ms(fb0.p99),
    atMost(frest.p99 / ms(fb0.p99), T.s1fP99VsB0),
    '(vs B0)',
  );
  vs('S1f ceiling node:http (req/s)', ceil.rps, fb0.rps, undefined, '(vs B0)');
  vs('S1f CPU/request all processes (ms)', cpuSum(cf.REST), cpuSum(cf.B0), undefined, '(vs B0)');
  vs(
    'S1f CPU/request gateway + records (ms)',
    nodeCpu(cf.REST),
    cf.B0.b0,
    undefined,
    "(vs B0's node)",
  );

  const [b2, r2] = ['B0', 'REST'].map((k) => s2.arms[k]);
  vs('S2 REST limit=200 (req/s)', r2.rps, b2.rps, (x) => atLeast(x, T.s2VsB0), '(vs B0)');
  add('S2 REST p99 latency (ms)', r2.p99, b2.p99, r2.p99 / ms(b2.p99), undefined, '(vs B0)');
  const c2 = s2.cpuMsPerRequest;
  vs('S2 CPU/request all processes (ms)', cpuSum(c2.REST), cpuSum(c2.B0), undefined, '(vs B0)');

  for (const [where, d] of [
    ['via gateway', r.depth.depthGateway],
    ['on records', r.depth.depthGrpc],
  ])
    vs(
      `S4 deep page ${where} p50 (ms)`,
      d.deepP50,
      d.firstP50,
      (x) => atMost(x, T.depthRatio),
      '(vs page 1)',
    );
  const readPerRow = Math.max(r.depth.rowsRead.first.perRow, r.depth.rowsRead.deep.perRow);
  add(
    'S4 DB rows read per row returned',
    readPerRow,
    undefined,
    undefined,
    atMost(readPerRow, T.rowsReadPerRow),
  );
  const writtenPerPage = r.work.rowsWritten / r.work.pagesServed;
  add(
    'DB rows written per page',
    writtenPerPage,
    undefined,
    undefined,
    atMost(writtenPerPage, T.rowsWrittenPerPage),
  );
}

/** R1: one record by id vs B0, and the two 404s beside each other (issue 44). */
function retrieveRows(r, { add, vs, atLeast, atMost }) {
  const T = TARGETS;
  const { arms, cpuMsPerRequest: c } = r.retrieve;
  const [b0, rest] = [arms.B0, arms.REST];
  add('R1 B0 record by id (req/s)', b0.rps, undefined, undefined, undefined, '(the baseline)');
  vs('R1 REST record by id (req/s)', rest.rps, b0.rps, (x) => atLeast(x, T.r1VsB0), '(vs B0)');
  add(
    'R1 REST p99 latency (ms)',
    rest.p99,
    b0.p99,
    rest.p99 / ms(b0.p99),
    atMost(rest.p99 / ms(b0.p99), T.r1P99VsB0),
    `(vs B0; p50 ${rest.p50} vs ${b0.p50})`,
  );
  vs('R1 CPU/request all processes (ms)', cpuSum(c.REST), cpuSum(c.B0), undefined, '(vs B0)');
  vs(
    'R1 CPU/request gateway + records (ms)',
    nodeCpu(c.REST),
    c.B0.b0,
    undefined,
    "(vs B0's node)",
  );
  const [foreign, nowhere] = [arms['404 foreign'], arms['404 nowhere']];
  if (foreign && nowhere) {
    vs(
      "R1 404 another brand's id p50 (ms)",
      ms(foreign.p50),
      ms(nowhere.p50),
      undefined,
      `(vs an id that exists nowhere; p99 ${foreign.p99} vs ${nowhere.p99}, ${Math.round(foreign.rps)} vs ${Math.round(nowhere.rps)}/s)`,
    );
  }
}

/** S1 (the walk), S3 and the walk's A/B arms (a webhooks-only run has none of them). */
function walkRows(r, { add, vs, atLeast, atMost }) {
  const T = TARGETS;
  const { s1 } = r;
  const [b0, rest, mcp] = ['B0', 'REST', 'MCP'].map((k) => s1.arms[k]);
  const c1 = s1.cpuMsPerRequest;
  add('S1 walk B0 (pages/s)', b0.rps, undefined, undefined, undefined, '(the baseline)');
  vs('S1 walk REST (pages/s)', rest.rps, b0.rps, (x) => atLeast(x, T.s1VsB0), '(vs B0)');
  add('S1 walk REST p50 (ms)', rest.p50, b0.p50, rest.p50 / b0.p50, undefined, '(vs B0)');
  vs('S1 walk REST p99 (ms)', rest.p99, b0.p99, (x) => atMost(x, T.s1P99VsB0), '(vs B0)');
  vs(
    'S1 walk CPU/page gateway + records (ms)',
    nodeCpu(c1.REST),
    c1.B0.b0,
    (x) => atMost(x, T.s1NodeCpuVsB0),
    "(vs B0's node)",
  );
  vs('S1 walk CPU/page all processes (ms)', cpuSum(c1.REST), cpuSum(c1.B0), undefined, '(vs B0)');
  for (const proc of ['gateway', 'records', 'postgres'])
    add(`S1 walk CPU/page ${proc} (ms)`, c1.REST[proc], undefined, undefined);
  add('S1 walk CPU/page B0 node (ms)', c1.B0.b0, undefined, undefined);
  add('S1 walk CPU/page B0 postgres (ms)', c1.B0.postgres, undefined, undefined);
  // without its arm (BENCH_WALK_ARMS) S3 is not reported
  if (mcp) {
    vs(
      'S3 walk MCP tools/call (pages/s)',
      mcp.rps,
      rest.rps,
      (x) => atLeast(x, T.s3VsS1),
      '(vs S1 REST)',
    );
    vs('S3 walk MCP vs B0 (pages/s)', mcp.rps, b0.rps, undefined, '(vs B0)');
    vs('S3 walk MCP p99 (ms)', mcp.p99, rest.p99, undefined, '(vs S1 REST)');
    vs(
      'S3 walk MCP gateway CPU/call (ms)',
      c1.MCP.gateway,
      c1.REST.gateway,
      undefined,
      '(vs S1 REST)',
    );
  }

  // BENCH_VARIANTS: each variant beside REST, in the same rounds
  const variantNames = Object.keys(s1.arms).filter(
    (n) => !['B0', 'REST', 'MCP'].includes(n) && !n.startsWith('lean-'),
  );
  for (const name of variantNames) {
    const cpu = c1[name];
    vs(`S1 walk variant ${name} (pages/s)`, s1.arms[name].rps, rest.rps, undefined, '(vs REST)');
    vs(`S1 walk variant ${name} vs B0 (pages/s)`, s1.arms[name].rps, b0.rps, undefined, '(vs B0)');
    vs(
      `S1 walk variant ${name} CPU/page gateway + records (ms)`,
      nodeCpu(cpu),
      c1.B0.b0,
      undefined,
      "(vs B0's node)",
    );
    vs(
      `S1 walk variant ${name} gateway (ms)`,
      cpu.gateway,
      c1.REST.gateway,
      undefined,
      '(vs REST)',
    );
    vs(
      `S1 walk variant ${name} records (ms)`,
      cpu.records,
      c1.REST.records,
      undefined,
      '(vs REST)',
    );
  }

  for (const [name, arm] of Object.entries(s1.arms).filter(([n]) => n.startsWith('lean-'))) {
    const cpu = c1[name];
    vs(`S1 walk bare split ${name} (pages/s)`, arm.rps, b0.rps, undefined, '(vs B0)');
    vs(
      `S1 walk bare split CPU/page front + back (ms)`,
      cpu.front + cpu.back,
      c1.B0.b0,
      undefined,
      "(vs B0's node)",
    );
    vs(
      'S1 walk CPU/page gateway vs bare front (ms)',
      c1.REST.gateway,
      cpu.front,
      undefined,
      '(vs front)',
    );
    vs(
      'S1 walk CPU/page records vs bare back (ms)',
      c1.REST.records,
      cpu.back,
      undefined,
      '(vs back)',
    );
  }
}

/** The table's rows from a run's results (scenarios that did not run add no rows). */
function evaluate(r) {
  const T = TARGETS;
  const rows = [];
  const check = !SETTINGS.smoke; // a smoke run checks the harness and validity only
  const add = (metric, value, base, ratio, verdict, note = '') =>
    rows.push({
      metric,
      value: round(value, 3),
      baseline: base === undefined ? undefined : round(base, 3),
      ratio: ratio === undefined ? undefined : round(ratio, 3),
      target: [verdict?.target, note].filter(Boolean).join(' '),
      pass: check ? verdict?.pass : undefined,
    });
  const atLeast = (x, min) => ({ target: `>= ${min}`, pass: x >= min });
  const atMost = (x, max) => ({ target: `<= ${max}`, pass: x <= max });
  const vs = (metric, value, base, verdict, note) =>
    add(metric, value, base, value / base, verdict?.(value / base), note);

  const helpers = { add, vs, atLeast, atMost };
  if (r.s1) walkRows(r, helpers);
  if (r.s1f) firstPageRows(r, helpers);
  if (r.retrieve) retrieveRows(r, helpers);

  if (r.plans) {
    const p = r.plans;
    const [pRest, pNew, pReplay] = ['S1f REST', 'new', 'replay'].map((k) => p.arms[k]);
    vs(
      'S5 plan replay (req/s)',
      pReplay.rps,
      pRest.rps,
      (x) => atLeast(x, T.s5ReplayVsS1),
      '(vs S1f REST, same rounds)',
    );
    add(
      'S5 plan replay p50 / p99 (ms)',
      pReplay.p50,
      pRest.p50,
      pReplay.p99 / ms(pRest.p99),
      undefined,
      `p99 ${pReplay.p99} (ratio: p99 vs S1f REST)`,
    );
    vs('S5 new plan (req/s)', pNew.rps, pRest.rps, undefined, '(vs S1f REST, same rounds)');
    add('S5 new plan p50 / p99 (ms)', pNew.p50, undefined, undefined, undefined, `p99 ${pNew.p99}`);
    for (const arm of ['new', 'replay'])
      for (const [proc, value] of Object.entries(p.cpuMsPerRequest[arm]))
        add(`S5 ${arm} CPU/request ${proc} (ms)`, value, undefined, undefined);
  }
  if (r.comparison) webhookRows(r.comparison, helpers);
  if (r.catchUp) {
    const c = r.catchUp;
    add(
      `S6c ${c.deliveries} waiting delivered after one recover (s)`,
      c.recover.seconds,
      undefined,
      undefined,
      atMost(c.recover.seconds, T.s6cSeconds),
    );
    add(
      `S6c ${c.deliveries} waiting delivered after the first 2xx, no action (s)`,
      c.byItself.seconds,
      undefined,
      undefined,
      atMost(c.byItself.seconds, T.s6cSeconds),
    );
  }
  if (r.history) {
    const h = r.history;
    add(
      `S9 history size after ${h.written.toLocaleString('en')} deliveries vs when retention engaged`,
      h.sizeRatio,
      undefined,
      undefined,
      atMost(h.sizeRatio, T.s9SizeRatio),
      `(${h.last.mb} MB in ${h.last.partitions} partitions, ${h.retentionDays} days kept)`,
    );
    add(
      'S9 claim p99 at the end vs the first week',
      h.claimP99Ratio,
      undefined,
      undefined,
      atMost(h.claimP99Ratio, T.s9ClaimP99Ratio),
      `(${h.last.claim.p99} ms vs ${h.rows[0].claim.p99} ms; p50 ${h.last.claim.p50} ms)`,
    );
  }
  if (r.manyReceivers) manyReceiversRows(r.manyReceivers, helpers);
  if (r.otherBrands) {
    const o = r.otherBrands;
    const note = '(vs mean of alone before and after)';
    vs(
      `Small brand p50 beside a ${o.bigRows}-row brand (ms)`,
      o.withBig.p50,
      o.aloneMean.p50,
      (x) => atMost(x, T.otherBrandsRatio),
      note,
    );
    vs(
      'Small brand CPU/request beside it (ms)',
      o.withBig.cpuMs,
      o.aloneMean.cpuMs,
      (x) => atMost(x, T.otherBrandsRatio),
      note,
    );
    add(
      'Small brand DB rows read per row beside it',
      o.rowsRead.perRow,
      undefined,
      undefined,
      atMost(o.rowsRead.perRow, T.rowsReadPerRow),
    );
  }
  if (r.eventsFeed) {
    const { e1, e2 } = r.eventsFeed;
    vs(
      'E1 events page/s',
      e1.arms.events.rps,
      e1.arms.list.rps,
      (x) => atLeast(x, T.e1VsList),
      '(vs a list page of the same size)',
    );
    vs(
      'E2 unchanged events poll/s (304)',
      e2.arms.events.rps,
      e2.arms.list.rps,
      (x) => atLeast(x, T.e2VsS7),
      "(vs S7's unchanged list poll)",
    );
  }
  if (r.polling) {
    const { s7, s8 } = r.polling;
    const [pb, pr] = ['B0', 'REST'].map((k) => s7.arms[k]);
    const c7 = s7.cpuMsPerRequest;
    add(
      'S7 B0 polls/s (express ETag, 304)',
      pb.rps,
      undefined,
      undefined,
      undefined,
      '(the baseline)',
    );
    vs('S7 REST polls/s (304)', pr.rps, pb.rps, (x) => atLeast(x, T.s7VsB0), '(vs B0)');
    add(
      'S7 REST poll p50 / p99 (ms)',
      pr.p50,
      pb.p50,
      pr.p99 / ms(pb.p99),
      undefined,
      `p99 ${pr.p99} vs ${pb.p99}`,
    );
    vs(
      'S7 CPU/poll all processes (ms)',
      cpuSum(c7.REST),
      cpuSum(c7.B0),
      (x) => ({ target: `< ${T.s7CpuVsB0}`, pass: x < T.s7CpuVsB0 }),
      '(vs B0)',
    );
    for (const [proc, value] of Object.entries(c7.REST))
      add(`S7 CPU/poll ${proc} (ms)`, value, undefined, undefined);
    for (const [proc, value] of Object.entries(c7.B0))
      add(`S7 CPU/poll B0 ${proc} (ms)`, value, undefined, undefined);
    add(
      'S8 changes seen by the first poll after them',
      s8.seenWithinOne,
      s8.changes,
      s8.seenWithinOne / s8.changes,
      { target: '= all', pass: s8.seenWithinOne === s8.changes },
      '(of changes)',
    );
    add('S8 stale answers (a 304 hiding a change)', s8.stale, undefined, undefined, {
      target: '= 0',
      pass: s8.stale === 0,
    });
    add(
      'S8 polls: 304 / all',
      s8.notModified,
      s8.polls,
      s8.notModified / s8.polls,
      undefined,
      `(ack to seen p50 ${s8.seenP50Ms} ms, max ${s8.seenMaxMs} ms)`,
    );
  }
  const m = r.memory;
  // the peers (B0, W0, W1) are not the system: their memory is shown, not judged
  const peers = new Set(['b0', 'w0', 'w1']);
  for (const name of Object.keys(m.peakRss)) {
    const idle = m.idle?.[name]?.rss;
    add(
      `${name} RSS peak (MB)`,
      m.peakRss[name],
      idle,
      idle ? m.peakRss[name] / idle : undefined,
      peers.has(name) ? undefined : atMost(m.peakRss[name], T.rssPeakMb),
      peers.has(name) ? 'MB (a peer: not judged)' : 'MB',
    );
    if (!m.after?.[name] || !m.warm?.[name]) continue;
    const growth = m.after[name].liveHeap / m.warm[name].liveHeap;
    add(
      `${name} live heap after GC (MB)`,
      m.after[name].liveHeap,
      m.warm[name].liveHeap,
      growth,
      atMost(growth, T.liveHeapGrowth),
      '(vs after S1f)',
    );
  }
  return rows;
}

function printTable(rows) {
  const header = ['metric', 'value', 'baseline', 'ratio', 'target', 'result'];
  const cells = rows.map((row) => [
    row.metric,
    String(row.value),
    row.baseline === undefined ? '' : String(row.baseline),
    row.ratio === undefined ? '' : String(row.ratio),
    row.target,
    row.pass === undefined ? '' : row.pass ? 'pass' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) =>
    c.map((x, i) => (i === 0 || i === 4 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

function gitCommit() {
  try {
    const opts = { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] };
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], opts).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], opts)
      .toString()
      .trim();
    return dirty ? `${sha}+dirty` : sha;
  } catch {
    return 'unknown';
  }
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Prints the table and the notes under it, writes the JSON; returns whether the run passed. */
export function report(result) {
  const rows = evaluate(result);
  console.log('');
  printTable(rows);
  console.log('');
  for (const [label, s] of [
    ['S1/S3 walk', result.s1],
    ['S1f', result.s1f],
    ['S2', result.s2],
  ].filter(([, scenario]) => scenario))
    for (const [arm, ratios] of Object.entries(s.roundRatios))
      if (arm !== 'B0') console.log(`${label} ${arm} / B0 by round: ${ratios.join(' ')}`);
  for (const note of result.notes) console.log(note);
  const walk = result.s1?.walk;
  const mean = (arm) => Math.round(walk.meanBodyBytes[arm]);
  if (walk)
    console.log(
      `the walk: ${walk.brands} brands x ${walk.resources} resources, ${walk.pages} pages (${walk.rows} records), ${round(walk.pagesPerConnection, 1)} distinct pages per connection; mean body REST ${mean('REST')} bytes, B0 ${mean('B0')}, MCP ${mean('MCP')}`,
    );
  if (result.sizes)
    console.log(
      `first page bodies: REST ${result.sizes.restBodyBytes} bytes (limit=200: ${result.sizes.rest200BodyBytes})`,
    );
  console.log(`load average at start ${result.loadAtStart}, now ${loadavg()}`);
  if (result.work)
    console.log(
      `work (exact): ${result.work.pagesServed} pages, ${result.work.rowsReturned} rows returned, ${result.work.submissionRowsRead} submission rows read, ${result.work.rowsWritten} rows written`,
    );
  console.log('memory by phase (MB): RSS / heap in use after a full GC');
  for (const m of result.memory.timeline)
    console.log(
      `  ${m.phase.padEnd(8)} ${Object.entries(m)
        .filter(([k]) => k !== 'phase' && k !== 'at')
        .map(([n, v]) => `${n} ${v.rss} / ${v.liveHeap}`)
        .join('   ')}`,
    );
  const failed = rows.filter((r) => r.pass === false);
  for (const msg of result.invalid) console.log(`INVALID RUN: ${msg}`);
  const passed = failed.length === 0 && result.invalid.length === 0;
  mkdirSync(OUT_DIR, { recursive: true });
  const file = SETTINGS.smoke ? 'smoke.json' : 'last.json';
  writeFileSync(
    path.join(OUT_DIR, file),
    `${JSON.stringify(
      {
        finishedAt: new Date().toISOString(),
        commit: gitCommit(),
        seconds: round(elapsedSeconds(), 1),
        machine: { cpus: os.cpus().length, loadavg: os.loadavg(), loadAtStart: result.loadAtStart },
        settings: SETTINGS,
        targets: TARGETS,
        results: result,
        table: rows,
        passed,
      },
      null,
      2,
    )}\n`,
  );
  console.log(
    `${passed ? 'PASS' : 'FAIL'}${SETTINGS.smoke ? ' (smoke: harness and validity only)' : ''}: ${failed.length} target(s) missed${result.invalid.length ? ', run invalid' : ''}; results in .local/bench/${file} (${elapsed()})`,
  );
  return passed;
}

export { loadavg };

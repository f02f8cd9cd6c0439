#!/usr/bin/env node
// npm run bench: speed and memory of the gateway + records stack, as ratios against a
// baseline measured in the same run. See "Benchmark" in README.md.
//
// What runs: `tsc -b`, then on 127.0.0.1 only: a throwaway PostgreSQL database (created,
// migrated with services/records/dist/migrate.js, dropped at the end), a unique Redis key
// prefix (deleted at the end), one records and one gateway process (the built
// dist/main.js, ports 0, env as the testkit sets it, plus gcProbe.mjs preloaded), and the
// baseline: a bare node:http server in a child process answering every request with a
// body of exactly the gateway's page (19 KB). Load comes from autocannon in this process.
// It stops by itself (fixed durations; a watchdog aborts a stuck run), cleans up on
// failure and Ctrl-C too, and takes about 85 s. Results: .local/bench/last.json.
//
// How noise is kept out (2 shared cores, other agents' tests running):
//   - Throughput is measured in alternating slices, baseline then gateway, 4 x 2 s each,
//     with the same connections, method, headers and body, so both sides see the
//     machine in the same state; the gateway's figures are divided by the baseline's.
//   - CPU time per request (/proc/<pid>/stat) of gateway and records, divided by the
//     baseline server's: contention changes waiting far more than CPU spent per request.
//   - Exact work counters from PostgreSQL (rows read, rows written) that noise cannot
//     move, and the heap in use after a forced full GC rather than RSS alone.
//
// TARGETS, and why. Healthy figures on this kind of machine (several runs, README):
// REST 0.019-0.03 of baseline throughput; gateway 1.3-1.8 ms and records 0.9-1.1 ms CPU
// per page, 50-70x and 30-42x the bare server's; MCP 0.53-0.71 of REST throughput at
// 1.3-1.9x REST's gateway CPU; deep/first page 0.87-1.09; 1.01 rows read per row
// returned; 0.03-0.06 rows written per page; 429s at 3.6-6.9x REST's normalised rate;
// live heap after GC +0-8 % over the run. Each limit sits well outside that spread and
// well inside what the regression it names does:
//   - REST throughput >= 0.013 x baseline (half of healthy): catches anything that
//     halves it (an extra round trip per request, a per-request sync hash, ...).
//   - REST p99 <= 8 x REST p50: event-loop stalls (sync work, GC storms) widen the tail
//     long before they move the median. Loose, because tails are what noise hits first.
//   - Gateway CPU/request <= 100 x and records CPU/request <= 60 x the baseline's
//     (~1.5x healthy, busy machines inflate it): a synchronous hot loop or extra
//     serialisation shows here when the machine is too busy for throughput to tell
//     (1 ms of sync work per request measured 118x).
//   - MCP throughput >= 0.35 x REST (normalised) and MCP gateway CPU <= 2.5 x REST's:
//     MCP wraps the same page in JSON-RPC; more means per-call setup got expensive.
//   - Depth: the page ~19,000 rows deep vs the first page, p50 latency within 1.5x
//     either way, through the gateway (sequential, interleaved, within the brand's 240
//     a minute) and on the records service under load (gRPC, A/B slices). Keyset pages
//     cost the same at any depth: OFFSET makes deep pages 5-50x slower; ordering that
//     the index cannot serve makes every page cost the rows after it (first page worst).
//   - DB rows read per row returned <= 1.5 (exact, pg_stat_user_tables on submissions):
//     keyset + LIMIT reads what it returns; OFFSET or a sort reads far more.
//   - DB rows written per page served <= 0.1 (exact): reads must not write. Only
//     last_used_at (at most once a minute per key) is expected; a per-request write
//     (audit row, usage counter, an unthrottled touch) is >= 1.
//   - 429 path >= 0.05 x baseline and >= 1.5 x REST (normalised), and records CPU per
//     refusal <= 0.1 x per REST page: a refusal is one Redis script and no records call.
//   - Memory: RSS peak <= 400 MB per process (healthy ~230 gateway, ~115 records), and
//     the heap in use after a full GC at the end <= 1.3 x what it was after the warm-up:
//     a leak of ~200 bytes per request (about 40,000 requests follow the warm-up) or
//     ~1 KB per REST/MCP page fails it; a healthy process plateaus once warm.
// Validity (an invalid run fails too): every REST/MCP answer is a 200 with a full page,
// no brand budget runs out outside the 429 test (no refused decision), Redis is never
// bypassed (no in-memory decision), every 429-test answer after its warm-up is a 429.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import {
  checkInfrastructure,
  createDatabase,
  databaseUrl,
  deleteRedisPrefix,
  dropDatabase,
  dropStaleDatabases,
  newDatabaseName,
  newRedisPrefix,
  redisUrl,
  tableCounters,
  waitForNoSessions,
} from './lib/infra.mjs';
import {
  cannon,
  pairedRuns,
  getJson,
  grpcDepthLoad,
  interleavedLatency,
  percentile,
  rotatingKeys,
} from './lib/load.mjs';
import {
  killAllServicesNow,
  logTail,
  rssMb,
  runCommand,
  spawnService,
  stopAllServices,
} from './lib/processes.mjs';
import { createEnterpriseBrands, cursorAtDepth, insertSubmissions } from './lib/seed.mjs';

const TARGETS = {
  restThroughput: 0.013,
  restTail: 8,
  gatewayCpu: 100,
  recordsCpu: 60,
  mcpVsRest: 0.35,
  mcpCpuVsRest: 2.5,
  depthRatio: 1.5,
  rowsReadPerRow: 1.5,
  rowsWrittenPerPage: 0.1,
  refusalThroughput: 0.05,
  refusalVsRest: 1.5,
  refusalRecordsCpu: 0.1,
  rssPeakMb: 400,
  liveHeapGrowth: 1.3,
};

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT_DIR = path.join(REPO_ROOT, '.local/bench');
const LOG_DIR = path.join(OUT_DIR, 'logs');
const RECORDS_MAIN = path.join(REPO_ROOT, 'services/records/dist/main.js');
const RECORDS_MIGRATE = path.join(REPO_ROOT, 'services/records/dist/migrate.js');
const GATEWAY_MAIN = path.join(REPO_ROOT, 'gateway/dist/main.js');
const BASELINE_MAIN = path.join(REPO_ROOT, 'scripts/bench/baselineServer.mjs');
const PROFILE_DIR = path.join(OUT_DIR, 'profiles');
const GC_PROBE = pathToFileURL(path.join(REPO_ROOT, 'scripts/bench/gcProbe.mjs')).href;

const intEnv = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
};

const SETTINGS = {
  /**
   * Each HTTP scenario alternates baseline and gateway slices: `pairs` x `sliceSeconds`
   * measured on each side (8 s by default), after `warmupSeconds` on the gateway.
   */
  pairs: intEnv('BENCH_PAIRS', 4),
  sliceSeconds: intEnv('BENCH_SLICE_SECONDS', 2),
  warmupSeconds: intEnv('BENCH_WARMUP_SECONDS', 2),
  /** Concurrent connections of every HTTP load, baseline included. */
  connections: intEnv('BENCH_CONNECTIONS', 16),
  /**
   * Enterprise brands whose keys the REST and MCP loads rotate through: 400 x 240/min
   * = 96,000 requests a minute, well above what two cores can push through the stack.
   */
  brands: intEnv('BENCH_BRANDS', 400),
  submissionsPerBrand: 60,
  pageSize: 50,
  deepRows: 20_000,
  depth: 19_000,
  /** Sequential first/deep pairs through the gateway: 2 x (10 + 100) < 240 a minute. */
  depthWarmupPairs: 10,
  depthPairs: 100,
  grpcConcurrency: 4,
  grpcSlices: 16,
  grpcSliceMs: 250,
  /** BENCH_PROFILE=1: CPU profiles of gateway and records into .local/bench/profiles. */
  profile: process.env.BENCH_PROFILE === '1',
  /** The whole run is aborted (and cleaned up) after this long. */
  watchdogSeconds: intEnv('BENCH_WATCHDOG_SECONDS', 300),
};

const INTERNAL_TOKEN = 'bench-internal-token-0123456789abcdef';
const CURSOR_SECRET = 'bench-cursor-secret-0123456789abcdef-0123456789';
const REST_PATH = `/api/v1/submissions?limit=${SETTINGS.pageSize}`;
const MCP_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'list_submissions', arguments: { limit: SETTINGS.pageSize } },
});

const startedAt = Date.now();
const elapsed = () => `${((Date.now() - startedAt) / 1000).toFixed(1)}s`;
const say = (msg) => console.log(`[bench ${elapsed().padStart(6)}] ${msg}`);
const round = (x, digits = 2) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

// ---------------------------------------------------------------------------------------
// Cleanup: registered as resources are created, run once in reverse order whatever happens.

const cleanups = [];
let cleaning;
function runCleanups() {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step.run();
      } catch (err) {
        console.error(`[bench] cleanup "${step.name}" failed: ${err.message}`);
      }
    }
  })();
  return cleaning;
}

let interrupted = 0;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted += 1;
    if (interrupted > 2) {
      killAllServicesNow();
      process.exit(130);
    }
    if (interrupted > 1) {
      console.error('[bench] still cleaning up; press Ctrl-C again to abandon it');
      return;
    }
    console.error(`\n[bench] ${signal}: stopping and cleaning up`);
    void runCleanups().then(() => process.exit(130));
  });
}
process.on('exit', killAllServicesNow);

const watchdog = setTimeout(() => {
  console.error(`[bench] watchdog: still running after ${SETTINGS.watchdogSeconds} s; aborting`);
  void runCleanups().then(() => process.exit(2));
}, SETTINGS.watchdogSeconds * 1000);
watchdog.unref();

// ---------------------------------------------------------------------------------------

/** The gateway's Prometheus counters the validity checks need. */
async function gatewayCounters(gatewayUrl) {
  const res = await fetch(`${gatewayUrl}/metrics`);
  const text = await res.text();
  const sum = (re) => [...text.matchAll(re)].reduce((total, m) => total + Number(m[1]), 0);
  return {
    refused: sum(/^rate_limit_decisions_total\{[^}]*outcome="refused"[^}]*\} (\S+)$/gm),
    memoryDecisions: sum(/^rate_limit_decisions_total\{[^}]*backend="memory"[^}]*\} (\S+)$/gm),
  };
}

/** Samples RSS of the stack's processes every 250 ms, keeping the peak. */
function rssSampler(procs) {
  const peak = Object.fromEntries(procs.map((p) => [p.name, 0]));
  const timer = setInterval(() => {
    for (const p of procs) {
      try {
        peak[p.name] = Math.max(peak[p.name], rssMb(p.pid));
      } catch {
        // exited; the run fails elsewhere
      }
    }
  }, 250);
  return { peak, stop: () => clearInterval(timer) };
}

/** Asks a process's gcProbe for a full GC and returns the heap in use after it, in MB. */
async function liveHeapMb(proc) {
  const lines = () =>
    existsSync(proc.gcProbeFile) ? readFileSync(proc.gcProbeFile, 'utf8').trim().split('\n') : [];
  const before = lines().filter(Boolean).length;
  process.kill(proc.pid, 'SIGUSR2');
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const now = lines().filter(Boolean);
    if (now.length > before) return JSON.parse(now.at(-1)).heapUsed / 2 ** 20;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${proc.name} did not answer the GC probe (SIGUSR2) within 5 s`);
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

async function main() {
  rmSync(LOG_DIR, { recursive: true, force: true });
  mkdirSync(LOG_DIR, { recursive: true });
  say(
    `machine: ${os.cpus().length} cpus, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );

  if (process.env.BENCH_SKIP_BUILD === '1') {
    say('build skipped (BENCH_SKIP_BUILD=1)');
  } else {
    say('building: tsc -b gateway services/records cli');
    const require = createRequire(import.meta.url);
    await runCommand(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-b', 'gateway', 'services/records', 'cli'],
      { cwd: REPO_ROOT },
    );
  }

  await checkInfrastructure();
  const stale = await dropStaleDatabases();
  if (stale.length > 0) say(`dropped ${stale.length} database(s) left by killed runs`);

  // --- database and Redis prefix ----------------------------------------------------
  const dbName = newDatabaseName();
  const dbUrl = databaseUrl(dbName);
  await createDatabase(dbName);
  cleanups.push({ name: `drop database ${dbName}`, run: () => dropDatabase(dbName) });
  const redisPrefix = newRedisPrefix();
  cleanups.push({
    name: `delete Redis keys ${redisPrefix}*`,
    run: async () => {
      const n = await deleteRedisPrefix(redisPrefix);
      say(`deleted ${n} Redis key(s) under ${redisPrefix}`);
    },
  });
  cleanups.push({ name: 'stop processes', run: () => stopAllServices() });
  say(`database ${dbName}: migrating`);
  await runCommand(process.execPath, [RECORDS_MIGRATE], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: dbUrl, LOG_LEVEL: 'warn' },
  });

  const recordsEnv = {
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    DATABASE_URL: dbUrl,
    REDIS_URL: redisUrl(),
    REDIS_KEY_PREFIX: redisPrefix,
    INTERNAL_TOKEN,
    CURSOR_SECRET,
    LOG_LEVEL: 'info',
  };

  // --- seed with a separate records process, stopped before the measurement, so the
  // database's work counters afterwards contain only the measured stack's work.
  say(`seeding: ${SETTINGS.brands + 2} Enterprise brands and keys via the admin API`);
  const seeder = await spawnService({
    name: 'records-seed',
    entry: RECORDS_MAIN,
    env: recordsEnv,
    logFile: path.join(LOG_DIR, 'records-seed.log'),
  });
  const brands = await createEnterpriseBrands(
    `127.0.0.1:${seeder.port}`,
    INTERNAL_TOKEN,
    SETTINGS.brands + 2,
  );
  await seeder.stop();
  const loadBrands = brands.slice(0, SETTINGS.brands);
  const deepBrand = brands[SETTINGS.brands];
  const limitedBrand = brands[SETTINGS.brands + 1];
  say(
    `seeding: ${SETTINGS.submissionsPerBrand} submissions for each brand, ${SETTINGS.deepRows} for the deep one (SQL)`,
  );
  await insertSubmissions(
    dbUrl,
    [...loadBrands, limitedBrand].map((b) => b.brandId),
    SETTINGS.submissionsPerBrand,
  );
  await insertSubmissions(dbUrl, [deepBrand.brandId], SETTINGS.deepRows);
  await waitForNoSessions(dbName);
  const countersBefore = await tableCounters(dbName);

  // --- the measured stack ------------------------------------------------------------
  // gcProbe.mjs answers SIGUSR2 with the heap in use after a full GC (see that file).
  const probeArgs = (name) => ({
    nodeArgs: [
      '--expose-gc',
      '--import',
      GC_PROBE,
      ...(SETTINGS.profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
    ],
    gcProbeFile: path.join(LOG_DIR, `${name}.gc.jsonl`),
  });
  if (SETTINGS.profile) {
    rmSync(PROFILE_DIR, { recursive: true, force: true });
    say(`profiling on (figures not comparable): ${PROFILE_DIR}`);
  }
  const recordsProbe = probeArgs('records');
  const records = await spawnService({
    name: 'records',
    entry: RECORDS_MAIN,
    nodeArgs: recordsProbe.nodeArgs,
    env: {
      ...recordsEnv,
      HEALTH_PROBE_INTERVAL_MS: '500',
      BENCH_GC_PROBE_FILE: recordsProbe.gcProbeFile,
    },
    logFile: path.join(LOG_DIR, 'records.log'),
  });
  records.gcProbeFile = recordsProbe.gcProbeFile;
  const recordsAddress = `127.0.0.1:${records.port}`;
  const gatewayProbe = probeArgs('gateway');
  const gateway = await spawnService({
    name: 'gateway',
    entry: GATEWAY_MAIN,
    nodeArgs: gatewayProbe.nodeArgs,
    env: {
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      SERVICE_ENVIRONMENT: 'live',
      RECORDS_GRPC_ADDR: recordsAddress,
      REDIS_URL: redisUrl(),
      REDIS_KEY_PREFIX: redisPrefix,
      LOG_LEVEL: 'info',
      BENCH_GC_PROBE_FILE: gatewayProbe.gcProbeFile,
    },
    logFile: path.join(LOG_DIR, 'gateway.log'),
  });
  gateway.gcProbeFile = gatewayProbe.gcProbeFile;
  const gatewayUrl = `http://127.0.0.1:${gateway.port}`;
  const stack = [gateway, records];
  say(
    `stack up: gateway ${gatewayUrl} (pid ${gateway.pid}), records ${recordsAddress} (pid ${records.pid})`,
  );
  const memory = { timeline: [] };
  /** Memory at a phase boundary: RSS as it is, then the heap in use after a full GC. */
  const mark = async (phase) => {
    const entry = { phase, at: elapsed() };
    for (const p of stack) {
      entry[p.name] = { rss: round(rssMb(p.pid), 1), liveHeap: round(await liveHeapMb(p), 1) };
    }
    memory.timeline.push(entry);
    return entry;
  };
  memory.idle = await mark('idle');
  const sampler = rssSampler(stack);
  cleanups.push({ name: 'stop RSS sampler', run: () => sampler.stop() });

  // --- check one page of each kind, and size the baseline's body after the REST page ---
  const sample = await getJson(`${gatewayUrl}${REST_PATH}`, loadBrands[0].secret);
  if (sample.status !== 200 || sample.json.count !== SETTINGS.pageSize || !sample.json.next_cursor)
    throw new Error(
      `the REST page is not a full page: ${sample.status} ${sample.body.slice(0, 300)}`,
    );
  const mcpSample = await fetch(`${gatewayUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${loadBrands[1].secret}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: MCP_BODY,
  });
  const mcpText = await mcpSample.text();
  const mcpJson = JSON.parse(mcpText);
  if (
    mcpSample.status !== 200 ||
    mcpJson.result?.isError ||
    mcpJson.result?.structuredContent?.count !== SETTINGS.pageSize
  )
    throw new Error(
      `the MCP tool call is not a full page: ${mcpSample.status} ${mcpText.slice(0, 300)}`,
    );
  const pageBodyFile = path.join(OUT_DIR, 'baseline-body.json');
  writeFileSync(pageBodyFile, sample.body);
  const sizes = {
    restBodyBytes: Buffer.byteLength(sample.body),
    mcpBodyBytes: Buffer.byteLength(mcpText),
  };
  const baselineServer = await spawnService({
    name: 'baseline',
    entry: BASELINE_MAIN,
    args: [pageBodyFile],
    env: {},
    logFile: path.join(LOG_DIR, 'baseline.log'),
  });
  const baselineUrl = `http://127.0.0.1:${baselineServer.port}`;

  const { warmupSeconds, connections, pairs, sliceSeconds } = SETTINGS;
  const restRequest = (brandsToUse) => ({
    method: 'GET',
    path: REST_PATH,
    setupRequest: rotatingKeys(brandsToUse.map((b) => b.secret)),
  });
  const mcpRequest = (brandsToUse) => ({
    method: 'POST',
    path: '/api/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: MCP_BODY,
    setupRequest: rotatingKeys(brandsToUse.map((b) => b.secret)),
  });
  const invalid = [];
  const expectOnly = (label, r, statuses) => {
    const others = Object.keys(r.statusCounts).filter((code) => !statuses.includes(code));
    if (others.length > 0 || r.errors > 0 || r.timeouts > 0)
      invalid.push(
        `${label}: expected only ${statuses.join('/')}, got ${JSON.stringify(r.statusCounts)}, ${r.errors} errors, ${r.timeouts} timeouts`,
      );
  };
  const cpu = {
    gateway: { pid: gateway.pid, during: 'target' },
    records: { pid: records.pid, during: 'target' },
    baseline: { pid: baselineServer.pid, during: 'baseline' },
  };
  let pagesServed = 2; // the two sample pages; counted for the work counters

  /**
   * One HTTP scenario: a warm-up on the gateway, then baseline and gateway slices in
   * turn. `makeRequest` builds the request for either side (the baseline gets the same
   * method, headers and body, so the load generator's own cost is the same on both).
   */
  const scenario = async (label, makeRequest, { status, warmStatuses, afterWarmup }) => {
    const warm = await cannon({
      url: gatewayUrl,
      request: makeRequest(),
      connections,
      seconds: warmupSeconds,
    });
    expectOnly(`${label} warm-up`, warm, warmStatuses ?? [status]);
    await afterWarmup?.();
    const r = await pairedRuns({
      target: { url: gatewayUrl, request: makeRequest() },
      baseline: { url: baselineUrl, request: makeRequest() },
      pairs,
      sliceSeconds,
      connections,
      cpu,
    });
    expectOnly(label, r.target, [status]);
    expectOnly(`${label} (baseline slices)`, r.baseline, ['200']);
    pagesServed += (warm.statusCounts['200'] ?? 0) + (r.target.statusCounts['200'] ?? 0);
    const perRequestMs = (seconds, n) => (n > 0 ? (seconds / n) * 1000 : Number.NaN);
    const result = {
      warm,
      target: r.target,
      baseline: r.baseline,
      pairRatios: r.pairRatios.map((x) => round(x, 4)),
      cpuMsPerRequest: {
        gateway: perRequestMs(r.cpu.gateway, r.target.requests),
        records: perRequestMs(r.cpu.records, r.target.requests),
        baseline: perRequestMs(r.cpu.baseline, r.baseline.requests),
      },
    };
    say(
      `${label}: ${r.target.rps.toFixed(0)} req/s (baseline ${r.baseline.rps.toFixed(0)}), p50 ${r.target.p50} ms, p99 ${r.target.p99} ms, CPU/request gateway ${result.cpuMsPerRequest.gateway.toFixed(3)} ms, records ${result.cpuMsPerRequest.records.toFixed(3)} ms, baseline ${result.cpuMsPerRequest.baseline.toFixed(3)} ms; pair ratios ${result.pairRatios.join(' ')}`,
    );
    return result;
  };

  // --- a. REST -------------------------------------------------------------------------
  let counters = await gatewayCounters(gatewayUrl);
  const rest = await scenario('REST', () => restRequest(loadBrands), {
    status: '200',
    afterWarmup: async () => (memory.warm = await mark('REST warm-up')),
  });
  await mark('REST');
  let now = await gatewayCounters(gatewayUrl);
  if (now.refused > counters.refused)
    invalid.push(
      `REST: ${now.refused - counters.refused} requests were rate limited; raise BENCH_BRANDS`,
    );
  counters = now;

  // --- b. MCP --------------------------------------------------------------------------
  const mcp = await scenario('MCP tools/call', () => mcpRequest(loadBrands), { status: '200' });
  await mark('MCP');
  now = await gatewayCounters(gatewayUrl);
  if (now.refused > counters.refused)
    invalid.push(
      `MCP: ${now.refused - counters.refused} calls were rate limited (answered in-band); raise BENCH_BRANDS`,
    );
  counters = now;

  // --- c. the 429 path -------------------------------------------------------------------
  // One brand: the warm-up spends its whole budget (240), then every answer is a 429.
  const refusals = await scenario('429 path', () => restRequest([limitedBrand]), {
    status: '429',
    warmStatuses: ['200', '429'],
  });
  if ((refusals.warm.statusCounts['200'] ?? 0) > 240)
    invalid.push(
      `429 path: ${refusals.warm.statusCounts['200']} requests passed a budget of 240 a minute`,
    );
  await mark('429 path');
  now = await gatewayCounters(gatewayUrl);
  if (now.memoryDecisions > 0)
    invalid.push(
      `${now.memoryDecisions} rate-limit decisions fell back to memory (Redis slow or down)`,
    );

  // --- d. keyset depth ----------------------------------------------------------------
  const walk = await cursorAtDepth(
    recordsAddress,
    deepBrand.brandId,
    SETTINGS.depth,
    SETTINGS.pageSize,
  );
  pagesServed += walk.pages;
  say(`depth: followed ${walk.pages} cursors to row ${walk.rows}`);
  const deepUrl = `${gatewayUrl}${REST_PATH}&cursor=${encodeURIComponent(walk.cursor)}`;
  const gatewayDepth = await interleavedLatency({
    urls: { first: `${gatewayUrl}${REST_PATH}`, deep: deepUrl },
    secret: deepBrand.secret,
    warmup: SETTINGS.depthWarmupPairs,
    pairs: SETTINGS.depthPairs,
    expectCount: SETTINGS.pageSize,
  });
  pagesServed += 2 * (SETTINGS.depthWarmupPairs + SETTINGS.depthPairs);
  const depthGateway = {
    firstP50: percentile(gatewayDepth.first, 50),
    deepP50: percentile(gatewayDepth.deep, 50),
    firstP90: percentile(gatewayDepth.first, 90),
    deepP90: percentile(gatewayDepth.deep, 90),
    pairs: SETTINGS.depthPairs,
  };
  say(
    `depth via gateway (sequential, interleaved): first page p50 ${depthGateway.firstP50.toFixed(2)} ms, page at row ${walk.rows} p50 ${depthGateway.deepP50.toFixed(2)} ms`,
  );
  const grpcLoad = (slices, sliceMs) =>
    grpcDepthLoad({
      recordsAddress,
      brandId: deepBrand.brandId,
      deepCursor: walk.cursor,
      limit: SETTINGS.pageSize,
      concurrency: SETTINGS.grpcConcurrency,
      slices,
      sliceMs,
    });
  const grpcWarm = await grpcLoad(2, 250);
  const grpcArms = await grpcLoad(SETTINGS.grpcSlices, SETTINGS.grpcSliceMs);
  for (const arms of [grpcWarm, grpcArms])
    pagesServed += arms.first.latencies.length + arms.deep.latencies.length;
  const depthGrpc = {
    firstP50: percentile(grpcArms.first.latencies, 50),
    deepP50: percentile(grpcArms.deep.latencies, 50),
    firstP99: percentile(grpcArms.first.latencies, 99),
    deepP99: percentile(grpcArms.deep.latencies, 99),
    firstRps: grpcArms.first.latencies.length / grpcArms.first.seconds,
    deepRps: grpcArms.deep.latencies.length / grpcArms.deep.seconds,
  };
  say(
    `depth on records (gRPC, ${SETTINGS.grpcConcurrency} callers, A/B slices): first page p50 ${depthGrpc.firstP50.toFixed(2)} ms (${depthGrpc.firstRps.toFixed(0)}/s), deep p50 ${depthGrpc.deepP50.toFixed(2)} ms (${depthGrpc.deepRps.toFixed(0)}/s)`,
  );

  // --- e. memory -----------------------------------------------------------------------
  memory.after = await mark('end');
  sampler.stop();
  memory.peakRss = sampler.peak;

  // --- exact work counters: stop the stack so PostgreSQL flushes every backend's stats --
  await gateway.stop();
  await records.stop();
  await baselineServer.stop();
  await waitForNoSessions(dbName);
  const countersAfter = await tableCounters(dbName);
  const work = {
    rowsWritten: countersAfter.rowsWritten - countersBefore.rowsWritten,
    submissionRowsRead: countersAfter.submissionRowsRead - countersBefore.submissionRowsRead,
    pagesServed,
  };

  return {
    dbName,
    sizes,
    rest,
    mcp,
    depthGateway,
    depthGrpc,
    refusals,
    memory,
    work,
    invalid,
  };
}

// ---------------------------------------------------------------------------------------
// Evaluation and report

function evaluate(r) {
  const T = TARGETS;
  const rows = [];
  const add = (metric, value, base, ratio, check, note = '') =>
    rows.push({
      metric,
      value: round(value, 3),
      baseline: base === undefined ? undefined : round(base, 3),
      ratio: ratio === undefined ? undefined : round(ratio, 3),
      target: [check?.target, note].filter(Boolean).join(' '),
      pass: check?.pass,
    });
  const atLeast = (x, min) => ({ target: `>= ${min}`, pass: x >= min });
  const atMost = (x, max) => ({ target: `<= ${max}`, pass: x <= max });
  /** Equal within a factor: neither side more than `factor` times the other. */
  const near = (x, factor) => ({
    target: `${round(1 / factor)}..${factor}`,
    pass: x >= 1 / factor && x <= factor,
  });
  // autocannon reports whole milliseconds; the bare server is often under 1 ms
  const ms = (x) => Math.max(x, 1);
  const rel = (s) => s.target.rps / s.baseline.rps;

  // a. REST
  const { rest, mcp, refusals } = r;
  add(
    'REST throughput (req/s)',
    rest.target.rps,
    rest.baseline.rps,
    rel(rest),
    atLeast(rel(rest), T.restThroughput),
  );
  add(
    'REST p50 latency (ms)',
    rest.target.p50,
    rest.baseline.p50,
    rest.target.p50 / ms(rest.baseline.p50),
  );
  add(
    'REST p99 latency (ms)',
    rest.target.p99,
    rest.baseline.p99,
    rest.target.p99 / ms(rest.baseline.p99),
  );
  const tail = rest.target.p99 / ms(rest.target.p50);
  add('REST p99 / p50', tail, undefined, undefined, atMost(tail, T.restTail));
  const gwCpu = rest.cpuMsPerRequest.gateway / rest.cpuMsPerRequest.baseline;
  add(
    'REST gateway CPU/request (ms)',
    rest.cpuMsPerRequest.gateway,
    rest.cpuMsPerRequest.baseline,
    gwCpu,
    atMost(gwCpu, T.gatewayCpu),
  );
  const recCpu = rest.cpuMsPerRequest.records / rest.cpuMsPerRequest.baseline;
  add(
    'REST records CPU/request (ms)',
    rest.cpuMsPerRequest.records,
    rest.cpuMsPerRequest.baseline,
    recCpu,
    atMost(recCpu, T.recordsCpu),
  );

  // b. MCP: against its own interleaved baseline and against REST (both normalised)
  add('MCP throughput (req/s)', mcp.target.rps, mcp.baseline.rps, rel(mcp));
  add(
    'MCP throughput vs REST',
    rel(mcp),
    rel(rest),
    rel(mcp) / rel(rest),
    atLeast(rel(mcp) / rel(rest), T.mcpVsRest),
    '(normalised)',
  );
  add(
    'MCP p50 latency (ms)',
    mcp.target.p50,
    rest.target.p50,
    mcp.target.p50 / ms(rest.target.p50),
    undefined,
    '(vs REST)',
  );
  add(
    'MCP p99 latency (ms)',
    mcp.target.p99,
    rest.target.p99,
    mcp.target.p99 / ms(rest.target.p99),
    undefined,
    '(vs REST)',
  );
  const mcpCpu = mcp.cpuMsPerRequest.gateway / rest.cpuMsPerRequest.gateway;
  add(
    'MCP gateway CPU/call (ms)',
    mcp.cpuMsPerRequest.gateway,
    rest.cpuMsPerRequest.gateway,
    mcpCpu,
    atMost(mcpCpu, T.mcpCpuVsRest),
    '(vs REST)',
  );

  // c. keyset depth
  const g = r.depthGateway;
  add(
    'Depth 19k via gateway p50 (ms)',
    g.deepP50,
    g.firstP50,
    g.deepP50 / g.firstP50,
    near(g.deepP50 / g.firstP50, T.depthRatio),
    '(vs page 1)',
  );
  add(
    'Depth 19k via gateway p90 (ms)',
    g.deepP90,
    g.firstP90,
    g.deepP90 / g.firstP90,
    undefined,
    '(vs page 1)',
  );
  const c = r.depthGrpc;
  add(
    'Depth 19k on records p50 (ms)',
    c.deepP50,
    c.firstP50,
    c.deepP50 / c.firstP50,
    near(c.deepP50 / c.firstP50, T.depthRatio),
    '(vs page 1)',
  );
  add(
    'Depth 19k on records (calls/s)',
    c.deepRps,
    c.firstRps,
    c.deepRps / c.firstRps,
    undefined,
    '(vs page 1)',
  );
  const readPerRow = r.work.submissionRowsRead / (r.work.pagesServed * SETTINGS.pageSize);
  add(
    'DB rows read per row returned',
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

  // d. the 429 path
  add(
    '429 throughput (req/s)',
    refusals.target.rps,
    refusals.baseline.rps,
    rel(refusals),
    atLeast(rel(refusals), T.refusalThroughput),
  );
  add(
    '429 throughput vs REST',
    rel(refusals),
    rel(rest),
    rel(refusals) / rel(rest),
    atLeast(rel(refusals) / rel(rest), T.refusalVsRest),
    '(normalised)',
  );
  add(
    '429 p99 latency (ms)',
    refusals.target.p99,
    refusals.baseline.p99,
    refusals.target.p99 / ms(refusals.baseline.p99),
  );
  const refusalRecords = refusals.cpuMsPerRequest.records / rest.cpuMsPerRequest.records;
  add(
    '429 records CPU/refusal (ms)',
    refusals.cpuMsPerRequest.records,
    rest.cpuMsPerRequest.records,
    refusalRecords,
    atMost(refusalRecords, T.refusalRecordsCpu),
    '(vs REST)',
  );

  // e. memory
  const m = r.memory;
  for (const name of ['gateway', 'records']) {
    add(
      `${name} RSS idle -> after (MB)`,
      m.after[name].rss,
      m.idle[name].rss,
      m.after[name].rss / m.idle[name].rss,
    );
    add(
      `${name} RSS peak (MB)`,
      m.peakRss[name],
      m.idle[name].rss,
      m.peakRss[name] / m.idle[name].rss,
      atMost(m.peakRss[name], T.rssPeakMb),
      'MB',
    );
    const growth = m.after[name].liveHeap / m.warm[name].liveHeap;
    add(
      `${name} live heap after GC (MB)`,
      m.after[name].liveHeap,
      m.warm[name].liveHeap,
      growth,
      atMost(growth, T.liveHeapGrowth),
      '(vs warm)',
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

let exitCode = 1;
try {
  const result = await main();
  const rows = evaluate(result);
  console.log('');
  printTable(rows);
  console.log('');
  for (const [label, s] of [
    ['REST', result.rest],
    ['MCP', result.mcp],
    ['429', result.refusals],
  ]) {
    const spread = Math.max(...s.pairRatios) / Math.min(...s.pairRatios);
    console.log(
      `${label.padEnd(4)} gateway/baseline by slice pair: ${s.pairRatios.join(' ')}${spread > 1.5 ? '  (spread over 1.5x: the machine was noisy)' : ''}`,
    );
  }
  console.log(
    `page bodies: REST ${result.sizes.restBodyBytes} bytes (the baseline's body), MCP ${result.sizes.mcpBodyBytes} bytes; load average now ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `work (exact): ${result.work.pagesServed} pages served, ${result.work.submissionRowsRead} submission rows read, ${result.work.rowsWritten} rows written`,
  );
  console.log('memory by phase (MB): RSS, then heap in use after a full GC');
  console.log(`  ${'phase'.padEnd(14)} gateway rss / heap   records rss / heap`);
  for (const m of result.memory.timeline)
    console.log(
      `  ${m.phase.padEnd(14)} ${String(m.gateway.rss).padStart(11)} / ${String(m.gateway.liveHeap).padEnd(5)}  ${String(m.records.rss).padStart(11)} / ${m.records.liveHeap}`,
    );
  const failed = rows.filter((r) => r.pass === false);
  for (const msg of result.invalid) console.log(`INVALID RUN: ${msg}`);
  const passed = failed.length === 0 && result.invalid.length === 0;
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(
    path.join(OUT_DIR, 'last.json'),
    `${JSON.stringify(
      {
        finishedAt: new Date().toISOString(),
        commit: gitCommit(),
        seconds: round((Date.now() - startedAt) / 1000, 1),
        machine: { cpus: os.cpus().length, loadavg: os.loadavg() },
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
    `${passed ? 'PASS' : 'FAIL'}: ${failed.length} target(s) missed${result.invalid.length ? `, run invalid` : ''}; results in .local/bench/last.json (${elapsed()})`,
  );
  exitCode = passed ? 0 : 1;
} catch (err) {
  if (interrupted) await new Promise(() => undefined); // the signal handler exits
  console.error(`[bench] failed: ${err.stack ?? err}`);
  for (const name of ['records-seed', 'records', 'gateway', 'baseline'])
    console.error(`--- ${name} log tail ---\n${logTail(path.join(LOG_DIR, `${name}.log`), 10)}`);
  exitCode = 1;
} finally {
  await runCleanups();
}
process.exit(exitCode);

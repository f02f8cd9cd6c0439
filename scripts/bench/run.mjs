#!/usr/bin/env node
// npm run bench: the gateway + records stack side by side with B0, the single express
// process a brand engineer would write instead, in the same run. See BENCHMARKS.md and
// "Benchmark" in README.md.
//
// What runs: `tsc -b`, then on 127.0.0.1 only: a throwaway PostgreSQL database (created,
// migrated with services/records/dist/migrate.js, dropped at the end), a unique Redis key
// prefix (deleted at the end), one records and one gateway process (the built
// dist/main.js, ports 0, RATE_LIMIT_SCALE raised so one key can carry the load while the
// Redis script still runs per request, gcProbe.mjs preloaded), B0 (baselineMonolith.mjs:
// express 5 + pg, the key's SHA-256 looked up in the same api_keys table and cached, the
// same keyset SQL on the same rows, the same envelope, an HMAC cursor) and the ceiling (a
// bare node:http server answering with the system's page bytes). Load comes from
// autocannon in this process, always with the same key for B0 and the system. It stops
// by itself (fixed durations; a watchdog aborts a stuck run), cleans up on failure and
// Ctrl-C too, and takes about 90 s. Results: .local/bench/last.json.
//
// Scenarios (50 connections): S1 GET 50-row page; S2 the same at limit=200; S3 MCP
// tools/call of the S1 page; S4 a page 20,000 rows deep by cursor vs the first page;
// S5 campaign plans and S6 webhooks print "not yet available" until those routes exist.
//
// How noise is kept out (2 shared cores, other engineers' builds and tests running):
//   - Throughput is measured in round-robin slices (B0, system REST, MCP, ceiling, 2 s
//     each, 4 rounds), so every arm sees the machine in the same state; every figure
//     that matters is a ratio to B0 (or to REST) from the same run.
//   - CPU time per request of every process (/proc/<pid>/stat) during its own arm's
//     slices, PostgreSQL backends included (by application_name): contention changes
//     waiting far more than CPU spent per request.
//   - Exact work counters from PostgreSQL (rows read, rows written) that noise cannot
//     move, and the heap in use after a forced full GC rather than RSS alone.
//
// TARGETS (issue 10; not lowered to today's figures):
//   - S1 throughput >= 0.8 x B0, and S1 p99 <= 1.5 x B0's p99 at that load.
//   - S2 (limit=200) throughput >= 0.8 x B0 at limit=200.
//   - S3 MCP throughput >= 0.85 x S1 (REST) in the same rounds.
//   - S4 the page 19,000 rows deep within 1.2x the first page's p50 (through the
//     gateway, sequential and interleaved; and on the records service under load), and
//     PostgreSQL rows read per row returned <= 1.05 (exact: keyset + LIMIT reads what it
//     returns; OFFSET, or ORDER BY resolving to a formatted column, reads far more).
//   - DB rows written per page <= 0.1 (reads must not write; last_used_at is throttled).
//   - Each process (gateway, records, B0) below 200 MB RSS at its peak, and the heap in
//     use after a full GC at the end <= 1.3 x after the warm-up (flat heap).
// Validity (an invalid run fails too): every answer is a 200 with a full page, no
// rate-limit refusal, Redis never bypassed (no in-memory decision).
// BENCH_SMOKE=1: a short run (< 30 s with BENCH_SKIP_BUILD=1) that checks the harness
// and the validity conditions only, not the speed targets (scripts/test.sh runs it).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import {
  backendPids,
  rowsReadPerRow,
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
  cpuSeconds,
  getJson,
  grpcDepthLoad,
  interleavedArms,
  interleavedLatency,
  percentile,
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
  s1VsB0: 0.8,
  s1P99VsB0: 1.5,
  s2VsB0: 0.8,
  s3VsS1: 0.85,
  depthRatio: 1.2,
  rowsReadPerRow: 1.05,
  rowsWrittenPerPage: 0.1,
  rssPeakMb: 200,
  liveHeapGrowth: 1.3,
};

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT_DIR = path.join(REPO_ROOT, '.local/bench');
const LOG_DIR = path.join(OUT_DIR, 'logs');
const RECORDS_MAIN = path.join(REPO_ROOT, 'services/records/dist/main.js');
const RECORDS_MIGRATE = path.join(REPO_ROOT, 'services/records/dist/migrate.js');
const GATEWAY_MAIN = path.join(REPO_ROOT, 'gateway/dist/main.js');
const CEILING_MAIN = path.join(REPO_ROOT, 'scripts/bench/baselineServer.mjs');
const B0_MAIN = path.join(REPO_ROOT, 'scripts/bench/baselineMonolith.mjs');
const PROFILE_DIR = path.join(OUT_DIR, 'profiles');
/** As the Dockerfile, Helm chart, compose file and scripts/up.sh start the gateway. */
const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=8'];
const GC_PROBE = pathToFileURL(path.join(REPO_ROOT, 'scripts/bench/gcProbe.mjs')).href;

const intEnv = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
};

const SMOKE = process.env.BENCH_SMOKE === '1';
const SETTINGS = {
  /** BENCH_SMOKE=1: harness and validity only, short slices, no speed targets. */
  smoke: SMOKE,
  /** Round-robin rounds x slice seconds per arm (4 x 2 s by default), after a warm-up. */
  rounds: intEnv('BENCH_ROUNDS', SMOKE ? 1 : 4),
  sliceSeconds: intEnv('BENCH_SLICE_SECONDS', SMOKE ? 1 : 2),
  warmupSeconds: intEnv('BENCH_WARMUP_SECONDS', SMOKE ? 1 : 2),
  /** Concurrent connections of every HTTP load (the issue's figure: 50). */
  connections: intEnv('BENCH_CONNECTIONS', SMOKE ? 8 : 50),
  /**
   * Multiplies every tier's rate limit in the gateway (RATE_LIMIT_SCALE, bench-only): one
   * Enterprise key (240 a minute) x 2,000 carries any load two cores can push, and the
   * Redis script still runs for every request.
   */
  rateLimitScale: intEnv('BENCH_RATE_LIMIT_SCALE', 2000),
  /** Rows of the load brand (S1-S3: 50- and 200-row pages) and of the deep brand (S4). */
  loadRows: 1_000,
  pageSize: 50,
  bigPageSize: 200,
  deepRows: SMOKE ? 2_000 : 20_000,
  depth: SMOKE ? 1_000 : 19_000,
  depthWarmupPairs: SMOKE ? 2 : 10,
  depthPairs: SMOKE ? 10 : 100,
  grpcConcurrency: 4,
  grpcSlices: SMOKE ? 2 : 16,
  grpcSliceMs: 250,
  /** BENCH_PROFILE=1: CPU profiles of gateway, records and B0 into .local/bench/profiles. */
  profile: process.env.BENCH_PROFILE === '1',
  /** The whole run is aborted (and cleaned up) after this long. */
  watchdogSeconds: intEnv('BENCH_WATCHDOG_SECONDS', 300),
};

const INTERNAL_TOKEN = 'bench-internal-token-0123456789abcdef';
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef-0123';
const CURSOR_SECRET = 'bench-cursor-secret-0123456789abcdef-0123456789';
const listPath = (limit) => `/api/v1/submissions?limit=${limit}`;
const MCP_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'list_submissions', arguments: { limit: SETTINGS.pageSize } },
});
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

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

/** The gateway's Prometheus counters the validity checks need (its internal listener). */
async function gatewayCounters(opsUrl) {
  const res = await fetch(`${opsUrl}/metrics`);
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
      .join(' ')}${SMOKE ? '; SMOKE run: harness and validity only' : ''}`,
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
    METRICS_PORT: '0',
    DATABASE_URL: dbUrl,
    REDIS_URL: redisUrl(),
    REDIS_KEY_PREFIX: redisPrefix,
    INTERNAL_TOKEN,
    ADMIN_TOKEN,
    CURSOR_SECRET,
    LOG_LEVEL: 'info',
  };

  // --- seed with a separate records process, stopped before the measurement, so the
  // database's work counters afterwards contain only the measured processes' work.
  say('seeding: 2 Enterprise brands and keys via the admin API');
  const seeder = await spawnService({
    name: 'records-seed',
    entry: RECORDS_MAIN,
    env: recordsEnv,
    logFile: path.join(LOG_DIR, 'records-seed.log'),
  });
  const [loadBrand, deepBrand] = await createEnterpriseBrands(
    `127.0.0.1:${seeder.port}`,
    ADMIN_TOKEN,
    2,
  );
  await seeder.stop();
  say(
    `seeding: ${SETTINGS.loadRows} submissions for the load brand, ${SETTINGS.deepRows} for the deep one (SQL)`,
  );
  await insertSubmissions(dbUrl, [loadBrand.brandId], SETTINGS.loadRows);
  await insertSubmissions(dbUrl, [deepBrand.brandId], SETTINGS.deepRows);
  await waitForNoSessions(dbName);
  const countersBefore = await tableCounters(dbName);

  // --- the measured processes ---------------------------------------------------------
  // gcProbe.mjs answers SIGUSR2 with the heap in use after a full GC (see that file).
  const probeArgs = (name) => ({
    nodeArgs: [
      '--expose-gc',
      '--import',
      GC_PROBE,
      ...(SETTINGS.profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}/${name}`] : []),
    ],
    gcProbeFile: path.join(LOG_DIR, `${name}.gc.jsonl`),
  });
  if (SETTINGS.profile) {
    rmSync(PROFILE_DIR, { recursive: true, force: true });
    say(`profiling on (figures not comparable): ${PROFILE_DIR}`);
  }
  const spawnProbed = async (name, entry, env, nodeArgs = []) => {
    const probe = probeArgs(name);
    const proc = await spawnService({
      name,
      entry,
      nodeArgs: [...nodeArgs, ...probe.nodeArgs],
      env: { ...env, BENCH_GC_PROBE_FILE: probe.gcProbeFile },
      logFile: path.join(LOG_DIR, `${name}.log`),
    });
    proc.gcProbeFile = probe.gcProbeFile;
    return proc;
  };
  const records = await spawnProbed('records', RECORDS_MAIN, {
    ...recordsEnv,
    HEALTH_PROBE_INTERVAL_MS: '500',
  });
  const recordsAddress = `127.0.0.1:${records.port}`;
  const gateway = await spawnProbed(
    'gateway',
    GATEWAY_MAIN,
    {
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      METRICS_PORT: '0',
      SERVICE_ENVIRONMENT: 'live',
      RECORDS_GRPC_ADDR: recordsAddress,
      INTERNAL_TOKEN,
      REDIS_URL: redisUrl(),
      REDIS_KEY_PREFIX: redisPrefix,
      RATE_LIMIT_SCALE: String(SETTINGS.rateLimitScale),
      LOG_LEVEL: 'info',
    },
    GATEWAY_NODE_FLAGS,
  );
  const b0 = await spawnProbed('b0', B0_MAIN, { DATABASE_URL: dbUrl, CURSOR_SECRET });
  const gatewayUrl = `http://127.0.0.1:${gateway.port}`;
  const b0Url = `http://127.0.0.1:${b0.port}`;
  const stack = [gateway, records, b0];
  say(
    `up: gateway ${gatewayUrl} (pid ${gateway.pid}), records ${recordsAddress} (pid ${records.pid}), B0 ${b0Url} (pid ${b0.pid})`,
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

  // --- check one page of each kind; B0's page must be the system's, byte for byte ------
  const invalid = [];
  // exact work counters' denominators: every page B0 and the system served, and its rows
  let pagesServed = 0;
  let rowsReturned = 0;
  const samples = {};
  for (const limit of [SETTINGS.pageSize, SETTINGS.bigPageSize]) {
    const sys = await getJson(`${gatewayUrl}${listPath(limit)}`, loadBrand.secret);
    const base = await getJson(`${b0Url}${listPath(limit)}`, loadBrand.secret);
    pagesServed += 2;
    rowsReturned += 2 * limit;
    if (sys.status !== 200 || sys.json.count !== limit || !sys.json.next_cursor)
      throw new Error(`the system's page is not full: ${sys.status} ${sys.body.slice(0, 300)}`);
    const sameData = JSON.stringify(sys.json.data) === JSON.stringify(base.json.data);
    if (base.status !== 200 || !sameData)
      throw new Error(`B0's page differs from the system's: ${base.body.slice(0, 300)}`);
    samples[limit] = sys.body;
  }
  const mcpSample = await fetch(`${gatewayUrl}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${loadBrand.secret}`, ...MCP_HEADERS },
    body: MCP_BODY,
  });
  const mcpText = await mcpSample.text();
  const mcpJson = JSON.parse(mcpText);
  pagesServed += 1;
  rowsReturned += SETTINGS.pageSize;
  if (
    mcpSample.status !== 200 ||
    mcpJson.result?.isError ||
    mcpJson.result?.structuredContent?.count !== SETTINGS.pageSize ||
    mcpJson.result.content?.[0]?.text !== JSON.stringify(mcpJson.result.structuredContent)
  )
    throw new Error(
      `the MCP tool call is not a full page: ${mcpSample.status} ${mcpText.slice(0, 300)}`,
    );
  const pageBodyFile = path.join(OUT_DIR, 'baseline-body.json');
  writeFileSync(pageBodyFile, samples[SETTINGS.pageSize]);
  const sizes = {
    restBodyBytes: Buffer.byteLength(samples[SETTINGS.pageSize]),
    rest200BodyBytes: Buffer.byteLength(samples[SETTINGS.bigPageSize]),
    mcpBodyBytes: Buffer.byteLength(mcpText),
  };
  const ceiling = await spawnService({
    name: 'ceiling',
    entry: CEILING_MAIN,
    args: [pageBodyFile],
    env: {},
    logFile: path.join(LOG_DIR, 'ceiling.log'),
  });
  const ceilingUrl = `http://127.0.0.1:${ceiling.port}`;

  // CPU accounting: each process during its own arm's slices; PostgreSQL backends by
  // application_name (records' pool: 'records', B0's: 'bench-b0'), looked up after the
  // warm-up, when the pools are open.
  const pgSeconds = (pids) => () =>
    pids.reduce((sum, pid) => {
      try {
        return sum + cpuSeconds(pid);
      } catch {
        return sum; // a backend that exited: its CPU is missing from the figure
      }
    }, 0);
  const processesOf = async (arm) => {
    if (arm.kind === 'B0')
      return {
        b0: () => cpuSeconds(b0.pid),
        postgres: pgSeconds(await backendPids(dbName, 'bench-b0')),
      };
    if (arm.kind === 'ceiling') return { ceiling: () => cpuSeconds(ceiling.pid) };
    return {
      gateway: () => cpuSeconds(gateway.pid),
      records: () => cpuSeconds(records.pid),
      postgres: pgSeconds(await backendPids(dbName, 'records')),
    };
  };
  const get = (limit) => ({
    method: 'GET',
    path: listPath(limit),
    headers: { authorization: `Bearer ${loadBrand.secret}` },
  });
  const mcpRequest = {
    method: 'POST',
    path: '/api/mcp',
    headers: { authorization: `Bearer ${loadBrand.secret}`, ...MCP_HEADERS },
    body: MCP_BODY,
  };
  const expectOnly = (label, r) => {
    const others = Object.keys(r.statusCounts).filter((code) => code !== '200');
    if (others.length > 0 || r.errors > 0 || r.timeouts > 0)
      invalid.push(
        `${label}: expected only 200, got ${JSON.stringify(r.statusCounts)}, ${r.errors} errors, ${r.timeouts} timeouts`,
      );
  };
  const { warmupSeconds, connections, rounds, sliceSeconds } = SETTINGS;
  /** Counts the pages an arm served, for the exact work counters (not the ceiling's). */
  const countPages = (arm, figures) => {
    if (arm.kind === 'ceiling') return;
    const ok = figures.statusCounts['200'] ?? 0;
    pagesServed += ok;
    rowsReturned += ok * arm.rows;
  };

  /**
   * One scenario: a warm-up of every arm, then `rounds` round-robin rounds of slices.
   * Arms: { name, kind: 'B0' | 'system' | 'ceiling', url, request, rows }. Returns each
   * arm's figures, its rate over the first arm's per round, CPU ms per request per process.
   */
  const scenario = async (label, arms) => {
    // a smoke run's slices are its warm-up: it checks the path, not the speed
    for (const arm of SMOKE ? [] : arms) {
      const warm = await cannon({
        url: arm.url,
        request: arm.request,
        connections,
        seconds: warmupSeconds,
      });
      expectOnly(`${label} ${arm.name} (warm-up)`, warm);
      countPages(arm, warm);
    }
    const cpu = {};
    for (const arm of arms)
      for (const [proc, seconds] of Object.entries(await processesOf(arm)))
        cpu[`${arm.name}:${proc}`] = { seconds, during: arm.name };
    const r = await interleavedArms({ arms, rounds, sliceSeconds, connections, cpu });
    const cpuMsPerRequest = Object.fromEntries(arms.map((a) => [a.name, {}]));
    for (const [key, seconds] of Object.entries(r.cpu)) {
      const [armName, proc] = key.split(':');
      const n = r.arms[armName].requests;
      cpuMsPerRequest[armName][proc] = n > 0 ? (seconds / n) * 1000 : Number.NaN;
    }
    for (const arm of arms) {
      expectOnly(`${label} ${arm.name}`, r.arms[arm.name]);
      if (r.arms[arm.name].requests === 0)
        invalid.push(`${label} ${arm.name}: no request completed within a slice`);
      countPages(arm, r.arms[arm.name]);
    }
    for (const arm of arms) {
      const f = r.arms[arm.name];
      const cpuText = Object.entries(cpuMsPerRequest[arm.name])
        .map(([proc, ms]) => `${proc} ${ms.toFixed(3)}`)
        .join(', ');
      say(
        `${label} ${arm.name.padEnd(7)} ${f.rps.toFixed(0).padStart(6)}/s  p50 ${f.p50} ms  p99 ${f.p99} ms  CPU ms/request: ${cpuText}`,
      );
    }
    return {
      arms: r.arms,
      roundRatios: Object.fromEntries(
        Object.entries(r.roundRatios).map(([k, v]) => [k, v.map((x) => round(x, 3))]),
      ),
      cpuMsPerRequest,
    };
  };

  const opsUrl = `http://127.0.0.1:${gateway.opsPort}`;
  const counters = await gatewayCounters(opsUrl);
  // --- S1 and S3: B0, REST, MCP and the ceiling in the same rounds ---------------------
  const page = SETTINGS.pageSize;
  const big = SETTINGS.bigPageSize;
  const s1 = await scenario('S1/S3', [
    { name: 'B0', kind: 'B0', url: b0Url, request: get(page), rows: page },
    { name: 'REST', kind: 'system', url: gatewayUrl, request: get(page), rows: page },
    { name: 'MCP', kind: 'system', url: gatewayUrl, request: mcpRequest, rows: page },
    { name: 'ceiling', kind: 'ceiling', url: ceilingUrl, request: get(page), rows: page },
  ]);
  memory.warm = await mark('S1/S3');
  // --- S2: limit=200 ----------------------------------------------------------------
  const s2 = await scenario('S2', [
    { name: 'B0', kind: 'B0', url: b0Url, request: get(big), rows: big },
    { name: 'REST', kind: 'system', url: gatewayUrl, request: get(big), rows: big },
  ]);
  await mark('S2');
  const now = await gatewayCounters(opsUrl);
  if (now.refused > counters.refused)
    invalid.push(
      `${now.refused - counters.refused} requests were rate limited; raise BENCH_RATE_LIMIT_SCALE`,
    );
  if (now.memoryDecisions > 0)
    invalid.push(
      `${now.memoryDecisions} rate-limit decisions fell back to memory (Redis slow or down)`,
    );

  // --- S4: keyset depth -------------------------------------------------------------
  const walk = await cursorAtDepth(
    recordsAddress,
    deepBrand.brandId,
    SETTINGS.depth,
    SETTINGS.pageSize,
    INTERNAL_TOKEN,
  );
  pagesServed += walk.pages;
  rowsReturned += walk.pages * SETTINGS.pageSize;
  say(`S4: followed ${walk.pages} cursors to row ${walk.rows}`);
  const deepUrl = `${gatewayUrl}${listPath(SETTINGS.pageSize)}&cursor=${encodeURIComponent(walk.cursor)}`;
  const gatewayDepth = await interleavedLatency({
    urls: { first: `${gatewayUrl}${listPath(SETTINGS.pageSize)}`, deep: deepUrl },
    secret: deepBrand.secret,
    warmup: SETTINGS.depthWarmupPairs,
    pairs: SETTINGS.depthPairs,
    expectCount: SETTINGS.pageSize,
  });
  pagesServed += 2 * (SETTINGS.depthWarmupPairs + SETTINGS.depthPairs);
  rowsReturned += 2 * (SETTINGS.depthWarmupPairs + SETTINGS.depthPairs) * SETTINGS.pageSize;
  const depthGateway = {
    firstP50: percentile(gatewayDepth.first, 50),
    deepP50: percentile(gatewayDepth.deep, 50),
    firstP90: percentile(gatewayDepth.first, 90),
    deepP90: percentile(gatewayDepth.deep, 90),
    pairs: SETTINGS.depthPairs,
  };
  say(
    `S4 via gateway (sequential, interleaved): first page p50 ${depthGateway.firstP50.toFixed(2)} ms, page at row ${walk.rows} p50 ${depthGateway.deepP50.toFixed(2)} ms`,
  );
  const grpcLoad = (slices, sliceMs) =>
    grpcDepthLoad({
      recordsAddress,
      token: INTERNAL_TOKEN,
      brandId: deepBrand.brandId,
      deepCursor: walk.cursor,
      limit: SETTINGS.pageSize,
      concurrency: SETTINGS.grpcConcurrency,
      slices,
      sliceMs,
    });
  const grpcWarm = await grpcLoad(2, 250);
  const grpcArms = await grpcLoad(SETTINGS.grpcSlices, SETTINGS.grpcSliceMs);
  for (const arms of [grpcWarm, grpcArms]) {
    const pages = arms.first.latencies.length + arms.deep.latencies.length;
    pagesServed += pages;
    rowsReturned += pages * SETTINGS.pageSize;
  }
  const depthGrpc = {
    firstP50: percentile(grpcArms.first.latencies, 50),
    deepP50: percentile(grpcArms.deep.latencies, 50),
    firstRps: grpcArms.first.latencies.length / grpcArms.first.seconds,
    deepRps: grpcArms.deep.latencies.length / grpcArms.deep.seconds,
  };
  say(
    `S4 on records (gRPC ListRecordsPage, ${SETTINGS.grpcConcurrency} callers, A/B slices): first page p50 ${depthGrpc.firstP50.toFixed(2)} ms, deep p50 ${depthGrpc.deepP50.toFixed(2)} ms`,
  );

  // exact rows read per row returned, from EXPLAIN ANALYZE of the records service's own
  // page query (its built pageQuery and CursorCodec), for the first and the deep page
  const require = createRequire(import.meta.url);
  const { pageQuery } = require(
    path.join(REPO_ROOT, 'services/records/dist/records/recordRepo.js'),
  );
  const { CursorCodec } = require(path.join(REPO_ROOT, 'services/records/dist/records/cursor.js'));
  const binding = { brandId: deepBrand.brandId, resource: 'submissions' };
  const after = new CursorCodec(CURSOR_SECRET).decode(binding, walk.cursor);
  const rowsRead = {};
  for (const [arm, position] of [
    ['first', undefined],
    ['deep', after],
  ]) {
    const q = pageQuery({
      ...binding,
      limit: SETTINGS.pageSize,
      since: undefined,
      after: position,
    });
    rowsRead[arm] = await rowsReadPerRow(dbUrl, q.sql, q.params);
  }
  say(
    `S4 rows read per row returned (EXPLAIN ANALYZE): first page ${rowsRead.first.read}/${rowsRead.first.returned}, deep page ${rowsRead.deep.read}/${rowsRead.deep.returned}`,
  );

  // --- S5, S6: only once their routes exist ------------------------------------------
  const doc = await fetch(`${gatewayUrl}/openapi/service.yaml`).then((r) => r.text());
  const later = {
    S5: doc.includes('/api/v1/campaign-plans')
      ? 'route exists; scenario not yet in this harness'
      : 'not yet available',
    S6: 'not yet available',
  };
  say(`S5 (campaign plans): ${later.S5}; S6 (webhooks): ${later.S6}`);

  // --- memory and exact work counters -------------------------------------------------
  memory.after = await mark('end');
  sampler.stop();
  memory.peakRss = sampler.peak;
  await gateway.stop();
  await records.stop();
  await b0.stop();
  await ceiling.stop();
  await waitForNoSessions(dbName);
  const countersAfter = await tableCounters(dbName);
  const work = {
    rowsReturned,
    rowsWritten: countersAfter.rowsWritten - countersBefore.rowsWritten,
    submissionRowsRead: countersAfter.submissionRowsRead - countersBefore.submissionRowsRead,
    pagesServed,
  };
  return { dbName, sizes, s1, s2, depthGateway, depthGrpc, rowsRead, later, memory, work, invalid };
}

// ---------------------------------------------------------------------------------------
// Evaluation and report

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
  const ms = (x) => Math.max(x, 1); // autocannon reports whole milliseconds
  const { s1, s2 } = r;
  const [b0, rest, mcp, ceil] = ['B0', 'REST', 'MCP', 'ceiling'].map((k) => s1.arms[k]);

  add('S1 B0 throughput (req/s)', b0.rps, undefined, undefined, undefined, '(the baseline)');
  add(
    'S1 REST throughput (req/s)',
    rest.rps,
    b0.rps,
    rest.rps / b0.rps,
    atLeast(rest.rps / b0.rps, T.s1VsB0),
    '(vs B0)',
  );
  add('S1 REST p50 latency (ms)', rest.p50, b0.p50, rest.p50 / ms(b0.p50), undefined, '(vs B0)');
  add(
    'S1 REST p99 latency (ms)',
    rest.p99,
    b0.p99,
    rest.p99 / ms(b0.p99),
    atMost(rest.p99 / ms(b0.p99), T.s1P99VsB0),
    '(vs B0)',
  );
  add('S1 ceiling node:http (req/s)', ceil.rps, b0.rps, ceil.rps / b0.rps, undefined, '(vs B0)');
  const cpuSum = (arm) => Object.values(arm).reduce((a, b) => a + b, 0);
  const c1 = s1.cpuMsPerRequest;
  add(
    'S1 CPU/request all processes (ms)',
    cpuSum(c1.REST),
    cpuSum(c1.B0),
    cpuSum(c1.REST) / cpuSum(c1.B0),
    undefined,
    '(vs B0)',
  );
  for (const proc of ['gateway', 'records', 'postgres'])
    add(`S1 CPU/request ${proc} (ms)`, c1.REST[proc], undefined, undefined);
  add('S1 CPU/request B0 node (ms)', c1.B0.b0, undefined, undefined);
  add('S1 CPU/request B0 postgres (ms)', c1.B0.postgres, undefined, undefined);

  const [b2, r2] = ['B0', 'REST'].map((k) => s2.arms[k]);
  add(
    'S2 REST limit=200 (req/s)',
    r2.rps,
    b2.rps,
    r2.rps / b2.rps,
    atLeast(r2.rps / b2.rps, T.s2VsB0),
    '(vs B0)',
  );
  add('S2 REST p99 latency (ms)', r2.p99, b2.p99, r2.p99 / ms(b2.p99), undefined, '(vs B0)');
  add(
    'S2 CPU/request all processes (ms)',
    cpuSum(s2.cpuMsPerRequest.REST),
    cpuSum(s2.cpuMsPerRequest.B0),
    cpuSum(s2.cpuMsPerRequest.REST) / cpuSum(s2.cpuMsPerRequest.B0),
    undefined,
    '(vs B0)',
  );

  add(
    'S3 MCP tools/call (req/s)',
    mcp.rps,
    rest.rps,
    mcp.rps / rest.rps,
    atLeast(mcp.rps / rest.rps, T.s3VsS1),
    '(vs S1 REST)',
  );
  add('S3 MCP vs B0 (req/s)', mcp.rps, b0.rps, mcp.rps / b0.rps, undefined, '(vs B0)');
  add(
    'S3 MCP p99 latency (ms)',
    mcp.p99,
    rest.p99,
    mcp.p99 / ms(rest.p99),
    undefined,
    '(vs S1 REST)',
  );
  add(
    'S3 MCP gateway CPU/call (ms)',
    c1.MCP.gateway,
    c1.REST.gateway,
    c1.MCP.gateway / c1.REST.gateway,
    undefined,
    '(vs S1 REST)',
  );

  const g = r.depthGateway;
  add(
    'S4 deep page via gateway p50 (ms)',
    g.deepP50,
    g.firstP50,
    g.deepP50 / g.firstP50,
    atMost(g.deepP50 / g.firstP50, T.depthRatio),
    '(vs page 1)',
  );
  const c = r.depthGrpc;
  add(
    'S4 deep page on records p50 (ms)',
    c.deepP50,
    c.firstP50,
    c.deepP50 / c.firstP50,
    atMost(c.deepP50 / c.firstP50, T.depthRatio),
    '(vs page 1)',
  );
  const readPerRow = Math.max(r.rowsRead.first.perRow, r.rowsRead.deep.perRow);
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

  const m = r.memory;
  for (const name of ['gateway', 'records', 'b0']) {
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
      '(vs after S1)',
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
    ['S1/S3', result.s1],
    ['S2', result.s2],
  ])
    for (const [arm, ratios] of Object.entries(s.roundRatios))
      if (arm !== 'B0') console.log(`${label} ${arm} / B0 by round: ${ratios.join(' ')}`);
  console.log(`S5 (campaign plans): ${result.later.S5}`);
  console.log(`S6 (webhooks): ${result.later.S6}`);
  console.log(
    `page bodies: REST ${result.sizes.restBodyBytes} bytes (limit=200: ${result.sizes.rest200BodyBytes}), MCP ${result.sizes.mcpBodyBytes} bytes; load average now ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `work (exact): ${result.work.pagesServed} pages, ${result.work.rowsReturned} rows returned, ${result.work.submissionRowsRead} submission rows read, ${result.work.rowsWritten} rows written`,
  );
  console.log('memory by phase (MB): RSS / heap in use after a full GC');
  for (const m of result.memory.timeline)
    console.log(
      `  ${m.phase.padEnd(8)} ${['gateway', 'records', 'b0'].map((n) => `${n} ${m[n].rss} / ${m[n].liveHeap}`).join('   ')}`,
    );
  const failed = rows.filter((r) => r.pass === false);
  for (const msg of result.invalid) console.log(`INVALID RUN: ${msg}`);
  const passed = failed.length === 0 && result.invalid.length === 0;
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(
    path.join(OUT_DIR, SETTINGS.smoke ? 'smoke.json' : 'last.json'),
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
    `${passed ? 'PASS' : 'FAIL'}${SETTINGS.smoke ? ' (smoke: harness and validity only)' : ''}: ${failed.length} target(s) missed${result.invalid.length ? ', run invalid' : ''}; results in .local/bench/${SETTINGS.smoke ? 'smoke' : 'last'}.json (${elapsed()})`,
  );
  exitCode = passed ? 0 : 1;
} catch (err) {
  if (interrupted) await new Promise(() => undefined); // the signal handler exits
  console.error(`[bench] failed: ${err.stack ?? err}`);
  for (const name of ['records-seed', 'records', 'gateway', 'b0', 'ceiling'])
    console.error(`--- ${name} log tail ---\n${logTail(path.join(LOG_DIR, `${name}.log`), 10)}`);
  exitCode = 1;
} finally {
  await runCleanups();
}
process.exit(exitCode);

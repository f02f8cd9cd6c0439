// The run's infrastructure and processes: build, a throwaway database with every service's
// schema, a Redis key prefix, and the measured processes (each with the GC probe, and a
// CPU profile under BENCH_PROFILE=1); memory marks and the RSS sampler over them.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { onCleanup } from './cleanup.mjs';
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
} from './infra.mjs';
import { rssMb, runCommand, spawnService, stopAllServices } from './processes.mjs';
import {
  ADMIN_TOKEN,
  CURSOR_SECRET,
  GC_PROBE,
  INTERNAL_TOKEN,
  LOG_DIR,
  MAINS,
  PROFILE_DIR,
  REPO_ROOT,
  SETTINGS,
  round,
  say,
  elapsed,
} from './settings.mjs';

const BUILT = ['gateway', 'services/records', 'services/plans', 'services/webhooks', 'cli'];

/** `tsc -b` of every process the bench starts (skipped with BENCH_SKIP_BUILD=1). */
export async function build() {
  if (process.env.BENCH_SKIP_BUILD === '1') {
    say('build skipped (BENCH_SKIP_BUILD=1)');
    return;
  }
  say(`building: tsc -b ${BUILT.join(' ')}`);
  const require = createRequire(import.meta.url);
  await runCommand(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', ...BUILT], {
    cwd: REPO_ROOT,
  });
}

/**
 * A fresh database migrated for records, plans and webhooks, and a Redis key prefix; both
 * removed at the end (cleanup), as are the processes.
 */
export async function createInfrastructure() {
  await checkInfrastructure();
  const stale = await dropStaleDatabases();
  if (stale.length > 0) say(`dropped ${stale.length} database(s) left by killed runs`);
  const { dbName, dbUrl } = await createMigratedDatabase();
  const redisPrefix = newRedisPrefix();
  onCleanup(`delete Redis keys ${redisPrefix}*`, async () => {
    const n = await deleteRedisPrefix(redisPrefix);
    say(`deleted ${n} Redis key(s) under ${redisPrefix}`);
  });
  onCleanup('stop processes', () => stopAllServices());
  return { dbName, dbUrl, redisPrefix };
}

/**
 * A fresh database migrated for records, plans and webhooks, dropped at the end (cleanup), or
 * before by `drop()` (S10 gives each day one of its own).
 */
export async function createMigratedDatabase() {
  const dbName = newDatabaseName();
  const dbUrl = databaseUrl(dbName);
  await createDatabase(dbName);
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await dropDatabase(dbName);
  };
  onCleanup(`drop database ${dbName}`, drop);
  say(`database ${dbName}: migrating records, plans, webhooks`);
  for (const migrate of [MAINS.recordsMigrate, MAINS.plansMigrate, MAINS.webhooksMigrate]) {
    await runCommand(process.execPath, [migrate], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: dbUrl, LOG_LEVEL: 'warn' },
    });
  }
  return { dbName, dbUrl, drop };
}

/** The records service's environment on this run's database and Redis prefix. */
export function recordsEnv(infra, extra = {}) {
  return {
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    DATABASE_URL: infra.dbUrl,
    REDIS_URL: redisUrl(),
    REDIS_KEY_PREFIX: infra.redisPrefix,
    INTERNAL_TOKEN,
    ADMIN_TOKEN,
    CURSOR_SECRET,
    LOG_LEVEL: 'info',
    HEALTH_PROBE_INTERVAL_MS: '500',
    ...extra,
  };
}

/** The gateway's environment: RATE_LIMIT_SCALE raised (bench-only), the Redis script per request. */
export function gatewayEnv(infra, recordsAddress, extra = {}) {
  return {
    HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    SERVICE_ENVIRONMENT: 'live',
    RECORDS_GRPC_ADDR: recordsAddress,
    INTERNAL_TOKEN,
    REDIS_URL: redisUrl(),
    REDIS_KEY_PREFIX: infra.redisPrefix,
    RATE_LIMIT_SCALE: String(SETTINGS.rateLimitScale),
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** A process that is not measured (a seeder): started, used, stopped. */
export function spawnHelper(name, entry, env, opts = {}) {
  return spawnService({ name, entry, env, logFile: path.join(LOG_DIR, `${name}.log`), ...opts });
}

/** The processes measured so far (memory marks and the RSS sampler cover them). */
const measured = [];

/**
 * Starts a measured process: gcProbe.mjs preloaded (SIGUSR2 answers with the heap in use
 * after a full GC), a CPU profile under BENCH_PROFILE=1, its log in .local/bench/logs.
 */
export async function spawnMeasured(name, entry, env, nodeArgs = [], opts = {}) {
  const gcProbeFile = path.join(LOG_DIR, `${name}.gc.jsonl`);
  const proc = await spawnService({
    name,
    entry,
    nodeArgs: [
      ...nodeArgs,
      '--expose-gc',
      '--import',
      GC_PROBE,
      ...(SETTINGS.profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}/${name}`] : []),
      ...SETTINGS.nodeFlags,
    ],
    env: {
      ...env,
      BENCH_GC_PROBE_FILE: gcProbeFile,
      ...(SETTINGS.memoryTrace
        ? { BENCH_MEMORY_TRACE_FILE: path.join(LOG_DIR, `${name}.memory.jsonl`) }
        : {}),
    },
    logFile: path.join(LOG_DIR, `${name}.log`),
    ...opts,
  });
  proc.gcProbeFile = gcProbeFile;
  measured.push(proc);
  sampler.watch(proc);
  return proc;
}

/** Clears the output directories of a previous run. */
export function resetOutput() {
  rmSync(LOG_DIR, { recursive: true, force: true });
  mkdirSync(LOG_DIR, { recursive: true });
  if (SETTINGS.profile) {
    rmSync(PROFILE_DIR, { recursive: true, force: true });
    say(`profiling on (figures not comparable): ${PROFILE_DIR}`);
  }
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

/** Memory of the named measured processes at a phase boundary: RSS, then the heap after a full GC. */
export async function markMemory(memory, phase, names) {
  const entry = { phase, at: elapsed() };
  for (const p of measured.filter((m) => names.includes(m.name) && m.alive)) {
    entry[p.name] = { rss: round(rssMb(p.pid), 1), liveHeap: round(await liveHeapMb(p), 1) };
  }
  memory.timeline.push(entry);
  return entry;
}

/** Samples the RSS of every measured process every 250 ms, keeping each one's peak. */
export const sampler = (() => {
  const peak = {};
  const watched = new Set();
  const timer = setInterval(() => {
    for (const p of watched) {
      if (!p.alive) continue;
      try {
        peak[p.name] = Math.max(peak[p.name] ?? 0, rssMb(p.pid));
      } catch {
        // exited; the run fails elsewhere
      }
    }
  }, 250);
  timer.unref();
  return {
    peak,
    watch: (p) => watched.add(p),
    stop: () => clearInterval(timer),
  };
})();

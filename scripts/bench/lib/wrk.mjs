// The walk's load generator: wrk (C, one epoll loop per thread) with walk.lua, one thread
// per connection so every connection replays its own list of distinct requests. Chosen over
// autocannon for the walk because it costs the shared two cores far less per request
// (measured against the bare node:http server with a 19 KB body, 50 connections: wrk about
// 0.02 ms of CPU per request with 2 or 50 threads, autocannon 0.05 ms with one fixed
// request and 0.08 ms with a request built per call by setupRequest), and a load generator's
// CPU is taken from the servers it measures. wrk comes from Debian's package; the bench
// installs it when it is missing, as scripts/lib/common.sh installs Chromium.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BenchRefusal } from './kafka.mjs';
import { REPO_ROOT, say } from './settings.mjs';

const SCRIPT = path.join(REPO_ROOT, 'scripts/bench/walk.lua');
const COMMON_SH = path.join(REPO_ROOT, 'scripts/lib/common.sh');
const QUANTILES = 1000; // walk.lua's done(): each quantile is 0.1 % of a slice's requests

/** The first executable `name` on PATH, or undefined. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return path.join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

let wrkPath;

/**
 * wrk's path (BENCH_WRK, else wrk on PATH); installs Debian's package with apt-get when it
 * is missing. Refuses the run in one line when that is not possible.
 */
export function ensureWrk() {
  wrkPath ??= process.env.BENCH_WRK || onPath('wrk');
  if (wrkPath) return wrkPath;
  if (!onPath('apt-get'))
    throw new BenchRefusal(
      'the walk needs wrk and apt-get is not available: install wrk and put it on PATH (or set BENCH_WRK)',
    );
  say('installing wrk (apt) for the walk');
  // apt_get (scripts/lib/common.sh) waits for any other apt-get (a Chromium install by the test
  // command, or another's) instead of failing at once.
  const run = spawnSync(
    'bash',
    ['-c', '. "$1" && apt_get update -qq && apt_get install -y -qq wrk', 'bash', COMMON_SH],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (run.status !== 0)
    throw new BenchRefusal(
      `could not install wrk with apt-get (${run.stderr?.toString().trim().split('\n').at(-1) || run.error?.message})`,
    );
  wrkPath = onPath('wrk');
  if (!wrkPath) throw new BenchRefusal('apt-get installed wrk but it is not on PATH');
  return wrkPath;
}

const SAFE = /^[^\t\r\n]*$/;

/**
 * Writes one request list per connection into `dir` (0.tsv, 1.tsv, ...), as walk.lua reads
 * them. `lists`: [[{ method, path, body?, headers }]], one list per connection.
 */
export function writeRequestLists(dir, lists) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  lists.forEach((list, i) => {
    const lines = list.map((r) => {
      const fields = [
        r.method,
        r.path,
        r.body ?? '',
        ...Object.entries(r.headers).flatMap(([k, v]) => [k, v]),
      ];
      if (!fields.every((f) => SAFE.test(f)))
        throw new Error(`a walk request holds a tab or a line break: ${r.path}`);
      return fields.join('\t');
    });
    writeFileSync(path.join(dir, `${i}.tsv`), `${lines.join('\n')}\n`);
  });
}

/** One wrk run of `seconds` on `url`, `connections` threads of one connection, the lists in `dir`. */
function wrkRaw({ url, request: dir, connections, seconds }) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      ensureWrk(),
      [
        `-t${connections}`,
        `-c${connections}`,
        `-d${seconds}s`,
        '--timeout',
        '10s',
        '-s',
        SCRIPT,
        url,
        '--',
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
      if (code !== 0 || !line)
        return reject(new Error(`wrk failed (${code}): ${(err || out).trim().slice(-500)}`));
      resolve(JSON.parse(line.slice('WRK_RESULT '.length)));
    });
  });
}

/** The `p`th percentile (ms) of slices merged: every quantile weighs 0.1 % of its slice. */
function mergedPercentile(raws, p) {
  const points = raws
    .flatMap((r) => r.latency_us.map((us) => ({ us, weight: r.requests / QUANTILES })))
    .sort((a, b) => a.us - b.us);
  const total = points.reduce((a, x) => a + x.weight, 0);
  let seen = 0;
  for (const x of points) {
    seen += x.weight;
    if (seen >= (p / 100) * total) return x.us / 1000;
  }
  return Number.NaN;
}

/** Sums wrk slices into the figures the report uses (as load.mjs does for autocannon). */
function combine(raws) {
  const requests = raws.reduce((a, r) => a + r.requests, 0);
  const status = raws.reduce((a, r) => a + r.errors.status, 0);
  const seconds = raws.reduce((a, r) => a + r.duration_us / 1e6, 0);
  return {
    seconds,
    requests,
    rps: requests / seconds,
    p50: mergedPercentile(raws, 50),
    p99: mergedPercentile(raws, 99),
    // wrk tells only whether a status was above 399 (reading every status would have it
    // hand each 20 KB body to Lua); the pages were each checked once before the load
    statusCounts: { '2xx/3xx': requests - status, ...(status ? { '4xx/5xx': status } : {}) },
    errors: raws.reduce((a, r) => a + r.errors.connect + r.errors.read + r.errors.write, 0),
    timeouts: raws.reduce((a, r) => a + r.errors.timeout, 0),
  };
}

/** The load tool of walk arms (see interleavedArms in load.mjs): `request` is a lists directory. */
export const WRK = {
  expect: ['2xx/3xx'],
  slice: wrkRaw,
  combine: (raws) => combine(raws),
  rate: (raw) => raw.requests / (raw.duration_us / 1e6),
};

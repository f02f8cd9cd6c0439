// The measurement every throughput scenario shares: a warm-up of each arm, then round-robin
// slices (A B C A B C ...) so every arm sees the machine in the same state, with the CPU
// time each process spent during its own arm's slices, per request.
import { backendPids } from './infra.mjs';
import { cannon, cpuSeconds, interleavedArms } from './load.mjs';
import { SETTINGS, round, say } from './settings.mjs';

/** CPU seconds so far of one process. */
export const cpuOfPid = (pid) => () => cpuSeconds(pid);

/** CPU seconds so far of these processes (a backend that exited: its CPU is missing). */
function cpuOfPids(pids) {
  return pids.reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(pid);
    } catch {
      return sum;
    }
  }, 0);
}

/**
 * CPU seconds so far of the PostgreSQL backends of `applicationName` on the run's database,
 * looked up now (call after a warm-up, when the pools are open; pool connections stay).
 */
export async function cpuOfBackends(dbName, applicationName) {
  const pids = await backendPids(dbName, applicationName);
  return () => cpuOfPids(pids);
}

/**
 * CPU seconds of the backends of `applicationNames`, followed for as long as the phase lasts:
 * the backends are looked up and their CPU read now and every `everyMs` (and at each call), and
 * a backend's last reading is kept after it closes, so a pool that replaces idle connections
 * mid-phase (pg closes them after 10 s idle) loses at most one interval of a closed backend's
 * CPU, where a lookup at the start and at the end lost all of it (and missed the ones opened as
 * the load grew). A backend first seen after the start counts
 * from zero (it was born within the phase). Returns { read: async () => seconds, stop }.
 */
export function cpuOfBackendsFollowed(dbName, applicationNames, everyMs = 1_000) {
  const first = new Map();
  const last = new Map();
  let started = false;
  const sample = async () => {
    const pids = await backendPids(dbName, applicationNames);
    for (const pid of pids) {
      let seconds;
      try {
        seconds = cpuSeconds(pid);
      } catch {
        continue; // closed since the lookup
      }
      if (!first.has(pid)) first.set(pid, started ? 0 : seconds);
      last.set(pid, seconds);
    }
    started = true;
  };
  const timer = setInterval(() => void sample().catch(() => undefined), everyMs);
  timer.unref();
  return {
    async read() {
      await sample();
      let total = 0;
      for (const [pid, seconds] of last) total += seconds - first.get(pid);
      return total;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * One scenario. `arms`: [{ name, url, request, tool?, rows?, expect?: status[], cpu: async
 * () => ({ process: () => seconds }) }] (cpu is resolved after the warm-up; tool: the load
 * generator, autocannon unless given, see interleavedArms). `rows` is the rows of a page
 * (on average, for a walk). `invalid` collects
 * validity failures (any answer other than the expected statuses, errors, timeouts);
 * `work` counts the list pages served (arms with `rows`). Returns each arm's figures, its
 * rate over the first arm's per round, and CPU ms per request per process.
 */
export async function runArms(label, arms, { invalid, work }) {
  const { warmupSeconds, connections, rounds, sliceSeconds } = SETTINGS;
  const expectOnly = (what, arm, r) => {
    const allowed = (arm.expect ?? arm.tool?.expect ?? [200]).map(String);
    const others = Object.keys(r.statusCounts).filter((code) => !allowed.includes(code));
    if (others.length > 0 || r.errors > 0 || r.timeouts > 0)
      invalid.push(
        `${what}: expected only ${allowed.join('/')}, got ${JSON.stringify(r.statusCounts)}, ${r.errors} errors, ${r.timeouts} timeouts`,
      );
  };
  const countPages = (arm, figures) => {
    if (!arm.rows) return;
    // 200s (autocannon), or every answer below 400 (wrk: a walk's pages are all 200s)
    const ok = figures.statusCounts['200'] ?? figures.statusCounts['2xx/3xx'] ?? 0;
    work.pagesServed += ok;
    work.rowsReturned += Math.round(ok * arm.rows);
  };
  // a smoke run's slices are its warm-up: it checks the path, not the speed
  for (const arm of SETTINGS.smoke ? [] : arms) {
    const warm = await cannon({
      url: arm.url,
      request: arm.request,
      connections,
      seconds: warmupSeconds,
      tool: arm.tool,
    });
    expectOnly(`${label} ${arm.name} (warm-up)`, arm, warm);
    countPages(arm, warm);
  }
  const cpu = {};
  for (const arm of arms)
    for (const [proc, seconds] of Object.entries(await arm.cpu()))
      cpu[`${arm.name}:${proc}`] = { seconds, during: arm.name };
  const r = await interleavedArms({ arms, rounds, sliceSeconds, connections, cpu });
  const cpuMsPerRequest = Object.fromEntries(arms.map((a) => [a.name, {}]));
  for (const [key, seconds] of Object.entries(r.cpu)) {
    const [armName, proc] = key.split(':');
    const n = r.arms[armName].requests;
    cpuMsPerRequest[armName][proc] = n > 0 ? (seconds / n) * 1000 : Number.NaN;
  }
  for (const arm of arms) {
    expectOnly(`${label} ${arm.name}`, arm, r.arms[arm.name]);
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
}

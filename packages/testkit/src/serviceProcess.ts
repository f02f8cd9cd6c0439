import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A service process spawned for a test, bound to a port the OS chose. */
export interface ServiceProcess {
  name: string;
  port: number;
  /** The whole "listening" log entry (e.g. the gateway's ops_port). */
  listening: Record<string, unknown>;
  pid: number;
  /** Every stdout and stderr line so far, in arrival order. */
  logs(): string[];
  /**
   * Sends `signal` (SIGTERM by default) and waits for the exit; SIGKILL after `timeoutMs`
   * (default 15 s). Resolves with the exit code, null when a signal ended the process.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** Settles when the process exits, with its exit code (null when ended by a signal). */
  exited: Promise<number | null>;
}

export interface SpawnServiceOptions {
  name: string;
  /** Absolute path of a built entry point (a dist main.js). */
  entry: string;
  env: Record<string, string>;
  /**
   * How long to wait for the "listening" log line; default 40 s. A process with tracing on loads
   * the OpenTelemetry SDK first, and a records process doing so beside the other integration
   * workers (load 7-10) printed nothing for 20 s in a fresh-clone CI run.
   */
  readyTimeoutMs?: number;
}

const LOG_TAIL = 30;

/** Processes not yet exited, with the owner (a stack) that will stop them, if any. */
const running = new Map<ServiceProcess, ChildProcess>();
const owners = new WeakMap<ServiceProcess, object>();

/**
 * Spawns `node <entry>` with exactly `env` (plus PATH and HOME) and resolves once it logs
 * `{"msg":"listening","port":<n>}`. Rejects, with the last 30 log lines, when the process
 * exits first or the line does not come within the timeout (the process is then killed).
 */
export function spawnService(opts: SpawnServiceOptions): Promise<ServiceProcess> {
  // e.g. BRAND_TEST_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/profiles': where a start's CPU goes
  const nodeArgs = process.env.BRAND_TEST_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, opts.entry], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.on('error', (err) => {
      lines.push(`[testkit] spawn failed: ${err.message}`);
      resolve(null);
    });
  });
  const tail = (): string => lines.slice(-LOG_TAIL).join('\n');

  return new Promise<ServiceProcess>((resolve, reject) => {
    let service: ServiceProcess | undefined;
    const onLine = (line: string): void => {
      lines.push(line);
      if (service !== undefined) return;
      const entry = listeningEntry(line);
      if (entry === undefined || child.pid === undefined) return;
      clearTimeout(timer);
      service = makeService(opts.name, entry, child, lines, exited);
      track(service, child);
      resolve(service);
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    const readyTimeoutMs = opts.readyTimeoutMs ?? 40_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`${opts.name} did not log "listening" within ${readyTimeoutMs} ms:\n${tail()}`),
      );
    }, readyTimeoutMs);
    void exited.then((code) => {
      if (service !== undefined) return;
      clearTimeout(timer);
      // let readline deliver the last lines before reporting them
      setImmediate(() =>
        reject(new Error(`${opts.name} exited (${String(code)}) before listening:\n${tail()}`)),
      );
    });
  });
}

function listeningEntry(line: string): (Record<string, unknown> & { port: number }) | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    return entry.msg === 'listening' && typeof entry.port === 'number'
      ? (entry as Record<string, unknown> & { port: number })
      : undefined;
  } catch {
    return undefined;
  }
}

function makeService(
  name: string,
  listening: Record<string, unknown> & { port: number },
  child: ChildProcess,
  lines: string[],
  exited: Promise<number | null>,
): ServiceProcess {
  let done = false;
  void exited.then(() => (done = true));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000) => {
    if (!done) child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>(
      (r) => (timer = setTimeout(() => r('timeout'), timeoutMs)),
    );
    const outcome = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (outcome !== 'timeout') return outcome;
    child.kill('SIGKILL');
    return exited;
  };
  return {
    name,
    port: listening.port,
    listening,
    pid: child.pid!,
    logs: () => [...lines],
    stop,
    kill: async () => {
      if (!done) child.kill('SIGKILL');
      await exited;
    },
    exited,
  };
}

/** Marks `service` as stopped by `owner` (a stack), so closing another stack leaves it alone. */
export function setOwner(service: ServiceProcess, owner: object): void {
  owners.set(service, owner);
}

/**
 * Stops every process this test file spawned that is still running (SIGTERM, then SIGKILL
 * after `timeoutMs`). With `onlyUnowned`, processes that belong to a stack are skipped.
 */
export async function stopAllServices(
  opts: { onlyUnowned?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  const targets = [...running.keys()].filter((s) => !opts.onlyUnowned || !owners.has(s));
  await Promise.all(targets.map((s) => s.stop('SIGTERM', opts.timeoutMs ?? 5_000)));
}

/**
 * Safety net: a worker that exits (or a test file that crashed) must not leave services
 * behind. The exit hook is held only while something runs: jest loads this module afresh
 * for every test file, and a permanent listener per file would pile up on the worker.
 */
const killRunning = (): void => {
  for (const child of running.values()) child.kill('SIGKILL');
};

function track(service: ServiceProcess, child: ChildProcess): void {
  if (running.size === 0) process.on('exit', killRunning);
  running.set(service, child);
  void service.exited.then(() => {
    running.delete(service);
    if (running.size === 0) process.off('exit', killRunning);
  });
}

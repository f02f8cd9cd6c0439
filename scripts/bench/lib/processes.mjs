// Child processes of the benchmark: spawned with their output in a log file (so a busy
// load generator never slows them by reading a pipe), ready when they log "listening".
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every child still running, so cleanup can stop them whatever happened. */
const running = new Set();

/**
 * Spawns `node <entry>` with exactly `env` (plus PATH and HOME), stdout and stderr going to
 * `logFile`, and resolves once a JSON line `{"msg":"listening","port":n}` appears. Rejects
 * with the log's tail when the process exits first or `readyTimeoutMs` passes. A process that
 * is not node (a redis-server of the bench's own): `command` with its `args`, ready once a log
 * line matches `readyPattern`, on the `port` given.
 */
export async function spawnService({
  name,
  entry,
  args = [],
  nodeArgs = [],
  env,
  logFile,
  readyTimeoutMs = 20_000,
  command,
  readyPattern,
  port,
}) {
  const fd = openSync(logFile, 'w');
  const argv = command === undefined ? [...nodeArgs, entry, ...args] : args;
  const child = spawn(command ?? process.execPath, argv, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  let exitCode;
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exitCode = code ?? signal;
      running.delete(service);
      resolve(exitCode);
    });
    child.on('error', (err) => {
      exitCode = `spawn failed: ${err.message}`;
      running.delete(service);
      resolve(exitCode);
    });
  });
  const service = {
    name,
    pid: child.pid,
    port: 0,
    logFile,
    exited,
    get alive() {
      return exitCode === undefined;
    },
    /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
    async stop(graceMs = 5_000) {
      if (exitCode !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  running.add(service);

  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    const text = await readFile(logFile, 'utf8').catch(() => '');
    if (readyPattern?.test(text)) {
      service.port = port;
      return service;
    }
    const entry = readyPattern ? undefined : listeningEntry(text);
    if (entry !== undefined) {
      service.port = entry.port;
      service.opsPort = entry.ops_port; // the gateway's internal listener (/metrics)
      service.listening = entry;
      return service;
    }
    if (exitCode !== undefined) break;
    await sleep(50);
  }
  await service.stop(1_000);
  throw new Error(
    `${name} ${exitCode === undefined ? `did not log "listening" within ${readyTimeoutMs} ms` : `exited (${exitCode}) before listening`}; log tail:\n${logTail(logFile)}`,
  );
}

function listeningEntry(text) {
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.msg === 'listening' && typeof entry.port === 'number') return entry;
    } catch {
      // not a JSON line
    }
  }
  return undefined;
}

/** The last `lines` lines of a log file, for error messages. */
export function logTail(logFile, lines = 20) {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Stops every child this process started that is still running. */
export async function stopAllServices() {
  await Promise.all([...running].map((s) => s.stop(5_000)));
}

/** Synchronous last resort (process "exit" handler): SIGKILL whatever still runs. */
export function killAllServicesNow() {
  for (const s of running) {
    try {
      process.kill(s.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Resident set size of a process in MB, from /proc/<pid>/status (VmRSS). */
export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) / 1024;
}

/** Runs a command to completion with inherited output; rejects on a non-zero exit. */
export function runCommand(command, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', ...opts });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`${[command, ...args].join(' ')} failed (${code ?? signal})`)),
    );
  });
}

// One crash no longer ends `npm run up`. scripts/lib/supervise.sh, the supervisor up.sh starts
// every service with, is driven here exactly as up.sh drives it, with two stand-in services: a
// SIGKILLed service is restarted after 1 s, then 2 s when it dies again, while the other keeps
// running; Ctrl-C (SIGINT) stops every process it started and leaves a process it did not start
// alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, waitFor } from '@brand/testkit';

/**
 * A stand-in service: logs the line supervise waits for with its own pid (the test holds the
 * supervisor to that pid: a wrapper process in between would survive the kills), then runs
 * until killed.
 */
const SERVICE = `node -e 'console.log(JSON.stringify({msg:"listening",pid:process.pid})); setInterval(() => {}, 1000)'`;

const driver = (logDir: string): string => `
set -Eeuo pipefail
. scripts/lib/common.sh
. scripts/lib/supervise.sh
trap 'supervise_stop_all; exit 0' INT TERM
supervise alpha ${logDir}/alpha.log -- ${SERVICE}
supervise beta ${logDir}/beta.log -- ${SERVICE}
supervise_forever
`;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let logDir: string;
let up: ChildProcess;
let outsider: ChildProcess;
let output = '';

beforeAll(() => {
  logDir = mkdtempSync(path.join(tmpdir(), 'supervise-'));
  outsider = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  up = spawn('bash', ['-c', driver(logDir)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  up.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  up.stderr!.on('data', (d: Buffer) => (output += d.toString()));
});
/** Settles once `child` has exited (at once if it already has). */
const exitOf = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));

afterAll(async () => {
  up.kill('SIGKILL');
  outsider.kill('SIGKILL');
  for (const pid of startedPids()) if (alive(pid)) process.kill(pid, 'SIGKILL');
  // waited for: a child still being reaped when the file ends is an open handle that keeps the
  // jest worker from exiting gracefully (--detectOpenHandles named this spawn)
  await Promise.all([exitOf(up), exitOf(outsider)]);
  rmSync(logDir, { recursive: true, force: true });
});

/** Every pid the supervisor said it started ("is up (pid N" / "restarted (pid N"). */
function startedPids(): number[] {
  return [...output.matchAll(/(?:is up|restarted) \(pid (\d+)/g)].map((m) => Number(m[1]));
}

/** The pids the service itself logged, in order (its log is appended to across restarts). */
function servicePids(name: string): number[] {
  const log = readFileSync(path.join(logDir, `${name}.log`), 'utf8');
  return [...log.matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1]));
}

function pidOf(name: string, verb: 'is up' | 'restarted', nth = 0): number | undefined {
  const re = new RegExp(`${name} ${verb === 'is up' ? 'is up' : 'restarted'} \\(pid (\\d+)`, 'g');
  const found = [...output.matchAll(re)][nth];
  return found ? Number(found[1]) : undefined;
}

it('restarts a SIGKILLed service with a growing back-off; the others keep running', async () => {
  await waitFor(() => pidOf('beta', 'is up'), { timeoutMs: 20_000, what: 'both services up' });
  const alpha = pidOf('alpha', 'is up')!;
  const beta = pidOf('beta', 'is up')!;
  expect(servicePids('alpha')).toEqual([alpha]);
  expect(servicePids('beta')).toEqual([beta]);

  process.kill(alpha, 'SIGKILL');
  await waitFor(
    () => output.includes(`alpha (pid ${alpha}) exited with status 137; restarting it in 1 s`),
    {
      timeoutMs: 10_000,
    },
  );
  const alpha2 = await waitFor(() => pidOf('alpha', 'restarted', 0), { timeoutMs: 10_000 });
  expect(output).toContain(`alpha restarted (pid ${alpha2}) after a 1 s back-off`);
  // the restarted process is the service itself (it logs its own pid)
  await waitFor(() => servicePids('alpha').length === 2, { timeoutMs: 10_000 });
  expect(servicePids('alpha')).toEqual([alpha, alpha2]);
  expect(alive(beta)).toBe(true);

  // dying again soon after: the back-off doubles
  process.kill(alpha2, 'SIGKILL');
  await waitFor(
    () => output.includes(`alpha (pid ${alpha2}) exited with status 137; restarting it in 2 s`),
    {
      timeoutMs: 10_000,
    },
  );
  const alpha3 = await waitFor(() => pidOf('alpha', 'restarted', 1), { timeoutMs: 10_000 });
  expect(output).toContain(`alpha restarted (pid ${alpha3}) after a 2 s back-off`);
  expect(alive(beta)).toBe(true);
  await waitFor(() => servicePids('alpha').length === 3, { timeoutMs: 10_000 });
  expect(servicePids('alpha')).toEqual([alpha, alpha2, alpha3]);
  expect(up.exitCode).toBeNull(); // the supervisor itself never stopped
}, 60_000);

it('Ctrl-C stops every process it started, and nothing else', async () => {
  const exited = new Promise<number | null>((r) => up.on('exit', (code) => r(code)));
  up.kill('SIGINT');
  expect(await exited).toBe(0);
  const started = startedPids();
  expect(started.length).toBe(4); // alpha three times, beta once
  for (const pid of started) expect(alive(pid)).toBe(false);
  expect(alive(outsider.pid!)).toBe(true);
}, 30_000);

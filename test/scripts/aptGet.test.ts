// apt_get (scripts/lib/common.sh) waits for another apt or dpkg to finish. npm test installs
// Chromium in the background while deploy:check may install promtool, and a bare apt-get stops
// at once, exit 100, while another holds dpkg's frontend lock: npm run check failed that way on
// a machine without promtool. Here a python3 process holds the lock as apt does (a POSIX record
// lock on /var/lib/dpkg/lock-frontend) for a few seconds; the package asked for, bash, is
// installed everywhere, so nothing is downloaded and nothing changes, but apt takes the lock.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { REPO_ROOT } from '@brand/testkit';

const HOLD_SECONDS = 4;
const runsHere =
  process.getuid?.() === 0 &&
  spawnSync('sh', ['-c', 'command -v apt-get && command -v python3 && command -v flock']).status ===
    0;

function holdDpkgLock(): Promise<ChildProcess> {
  const holder = spawn('python3', [
    '-c',
    [
      'import fcntl, os, sys, time',
      "fd = os.open('/var/lib/dpkg/lock-frontend', os.O_RDWR | os.O_CREAT)",
      'fcntl.lockf(fd, fcntl.LOCK_EX)',
      "sys.stdout.write('held\\n'); sys.stdout.flush()",
      `time.sleep(${HOLD_SECONDS})`,
    ].join('\n'),
  ]);
  return new Promise((resolve, reject) => {
    holder.stdout.once('data', () => resolve(holder));
    holder.once('error', reject);
  });
}

async function timed(command: string): Promise<{ code: number | null; seconds: number }> {
  const started = Date.now();
  const child = spawn('bash', ['-c', command], { cwd: REPO_ROOT, stdio: 'ignore' });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, seconds: (Date.now() - started) / 1000 };
}

(runsHere ? describe : describe.skip)('apt_get while another holds dpkg', () => {
  // Long: on a new machine npm test's Chromium install may still hold dpkg's lock, and both the
  // holder and apt_get wait for it first (apt_get's own limit is 600 s).
  jest.setTimeout(660_000);

  it('a bare apt-get stops at once (what apt_get is for)', async () => {
    const holder = await holdDpkgLock();
    try {
      const bare = await timed('apt-get install -y -qq bash');
      expect(bare.code).toBe(100);
      expect(bare.seconds).toBeLessThan(HOLD_SECONDS - 1);
    } finally {
      await once(holder, 'exit');
    }
  });

  it('apt_get waits for the lock, then succeeds', async () => {
    const holder = await holdDpkgLock();
    const exited = once(holder, 'exit');
    const ours = await timed('. scripts/lib/common.sh && apt_get install -y -qq bash');
    await exited;
    expect(ours.code).toBe(0);
    expect(ours.seconds).toBeGreaterThanOrEqual(HOLD_SECONDS - 1);
  });
});

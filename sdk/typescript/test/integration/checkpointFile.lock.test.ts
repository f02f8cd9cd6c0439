// @brand-records/client/checkpoint-file on a real file system with real processes: one
// checkpoint has one follower (a second, in this process or another, is refused naming the
// first); the lock of a follower killed with SIGKILL is taken over and its last checkpoint read
// on; a follower whose lock was taken stops before it stores anything.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import {
  CheckpointLockedError,
  CheckpointLockLostError,
  openCheckpointFile,
} from '../../src/checkpointFile';
import { BrandRecordsError } from '../../src/errors/brandRecordsError';
import { REPO_ROOT } from '@brand/testkit';

const BUILT = path.join(REPO_ROOT, 'sdk/typescript/dist/cjs/checkpointFile/index.js');

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'checkpoint-lock-'));
  file = path.join(dir, 'events.checkpoint');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A follower in another process (the built package): opens the file, stores one checkpoint, waits. */
function followerProcess(checkpoint: string): { child: ChildProcess; ready: Promise<void> } {
  const script = `
    const { openCheckpointFile } = require(${JSON.stringify(BUILT)});
    openCheckpointFile(${JSON.stringify(checkpoint)}).then(async (c) => {
      await c.save({ after: 12, handled: ['evt_a'] });
      process.stdout.write('ready\\n');
      setInterval(() => undefined, 1000);
    }, (e) => { console.error(e); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`the follower exited (${code})`)));
  });
  return { child, ready };
}

describe('openCheckpointFile', () => {
  it('refuses a second follower of the same file in this process, and admits one after close', async () => {
    const first = await openCheckpointFile(file);
    await first.save({ after: 3, handled: ['evt_1'] });
    const second = openCheckpointFile(file);
    await expect(second).rejects.toBeInstanceOf(CheckpointLockedError);
    await expect(second).rejects.toMatchObject({
      holder: { pid: process.pid, host: hostname() },
      message: expect.stringContaining(
        'two followers of one checkpoint would hand every event twice',
      ) as string,
    });
    await first.close();
    const next = await openCheckpointFile(file);
    expect(next.from).toEqual({ after: 3, handled: ['evt_1'] });
    expect(next.tookOverFrom).toBeUndefined();
    await next.close();
  });

  it('refuses while a follower in another process runs, and takes over once it was killed', async () => {
    const { child, ready } = followerProcess(file);
    await ready;
    await expect(openCheckpointFile(file)).rejects.toMatchObject({
      name: 'CheckpointLockedError',
      holder: { pid: child.pid },
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const next = await openCheckpointFile(file);
    expect(next.tookOverFrom?.pid).toBe(child.pid);
    expect(next.from).toEqual({ after: 12, handled: ['evt_a'] });
    await next.close();
  });

  it('takes over a lock naming this pid that this process never took (a restarted container)', async () => {
    const stale = {
      pid: process.pid,
      host: hostname(),
      since: '2026-11-01T00:00:00.000Z',
      token: 'gone',
    };
    await writeFile(`${file}.lock`, JSON.stringify(stale));
    const opened = await openCheckpointFile(file);
    expect(opened.tookOverFrom).toEqual(stale);
    expect(opened.from).toEqual({ after: 0, handled: [] });
    await opened.close();
  });

  it("refuses a lock of another machine's follower, saying how to clear it", async () => {
    const remote = { pid: 1, host: 'other-host', since: '2026-11-01T00:00:00.000Z', token: 't' };
    await writeFile(`${file}.lock`, JSON.stringify(remote));
    await expect(openCheckpointFile(file)).rejects.toMatchObject({
      holder: remote,
      message: expect.stringContaining(
        `if it is gone (its machine too), delete ${file}.lock`,
      ) as string,
    });
  });

  it("lets exactly one of two followers racing for a dead follower's lock have it", async () => {
    const { child, ready } = followerProcess(file);
    await ready;
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const results = await Promise.allSettled([openCheckpointFile(file), openCheckpointFile(file)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({
      reason: expect.any(CheckpointLockedError) as unknown,
    });
    await (
      won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof openCheckpointFile>>>
    ).value.close();
  });

  it('stops a follower whose lock was taken before it stores anything more', async () => {
    const first = await openCheckpointFile(file);
    await first.save({ after: 1, handled: [] });
    // someone deleted the lock by hand and started a second follower
    await unlink(`${file}.lock`);
    const second = await openCheckpointFile(file);
    await second.save({ after: 5, handled: [] });
    await expect(first.save({ after: 2, handled: [] })).rejects.toBeInstanceOf(
      CheckpointLockLostError,
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ after: 5, handled: [] });
    // closing the first leaves the second's lock alone: the second still stores
    await first.close();
    await expect(second.save({ after: 6, handled: [] })).resolves.toBeUndefined();
    await second.close();
    await expect(readFile(`${file}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a file that holds no checkpoint, and leaves no lock behind', async () => {
    await writeFile(file, '{"after":"x"}');
    await expect(openCheckpointFile(file)).rejects.toThrow(/does not hold a checkpoint/);
    await expect(readFile(`${file}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a directory as the checkpoint, saying so, and leaves no lock behind', async () => {
    // Node's own EISDIR ("illegal operation on a directory, read") named neither the path nor
    // what to pass instead (the brandctl probe, 2026-11-30).
    await mkdir(file);
    const opened = openCheckpointFile(file);
    await expect(opened).rejects.toBeInstanceOf(BrandRecordsError);
    await expect(opened).rejects.toThrow(
      `${file} is a directory: name a file for the checkpoint, such as ${path.join(file, 'events.checkpoint')}.`,
    );
    await expect(readFile(`${file}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

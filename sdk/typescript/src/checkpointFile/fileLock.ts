import { BrandRecordsError } from '../errors/brandRecordsError.js';
import { errnoOf, type FsPromises, type ProcessFacts } from './nodeApis.js';

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When it took the lock (RFC 3339). */
  since: string;
  /** Unique to one taking of the lock. */
  token: string;
}

const holderText = (h: LockHolder) => `pid ${h.pid} on ${h.host}, since ${h.since}`;

/** Another follower holds the checkpoint's lock: following too would hand every event twice. */
export class CheckpointLockedError extends BrandRecordsError {
  override name = 'CheckpointLockedError';
  constructor(
    message: string,
    /** The lock file (`<checkpoint>.lock`). */
    readonly lockPath: string,
    /** The follower holding it, when its lock file names one. */
    readonly holder: LockHolder | undefined,
  ) {
    super(message);
  }
}

/** The lock was taken from this follower (its file deleted by hand, and another started). */
export class CheckpointLockLostError extends BrandRecordsError {
  override name = 'CheckpointLockLostError';
}

/**
 * The tokens of the locks this process holds, shared by every copy of the package it loaded
 * (its ES module and CommonJS builds), so a holder of this very pid is told apart: one of
 * ours is alive; any other is a process gone before us that had the same pid (a container's
 * restart gives the new process its predecessor's pid).
 */
const HELD: Set<string> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for('@brand-records/client/checkpoint-locks')
] ??= new Set<string>()) as Set<string>;

/** A lock this process holds. */
export interface HeldLock {
  readonly holder: LockHolder;
  /** The follower whose lock was taken over because it no longer runs, if any. */
  readonly tookOverFrom: LockHolder | undefined;
  /** Whether the lock file still names this holder. */
  stillHeld(): Promise<boolean>;
  /** Deletes the lock file if it still names this holder. */
  release(): Promise<void>;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    const ok =
      Number.isSafeInteger(h.pid) &&
      typeof h.host === 'string' &&
      typeof h.since === 'string' &&
      typeof h.token === 'string';
    return ok ? (h as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

/** The holder a lock file names; 'gone' when there is no file, 'unreadable' when it names none. */
async function readHolder(
  fs: FsPromises,
  path: string,
): Promise<LockHolder | 'gone' | 'unreadable'> {
  try {
    return parseHolder(await fs.readFile(path, 'utf8')) ?? 'unreadable';
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return 'gone';
    throw error;
  }
}

/** A holder that provably no longer runs: on this machine, its pid dead (or reused by us). */
function isGone(h: LockHolder, facts: ProcessFacts): boolean {
  if (h.host !== facts.hostname) return false;
  return h.pid === facts.pid ? !HELD.has(h.token) : !facts.isAlive(h.pid);
}

/**
 * Deletes a lock judged stale, if the file still is that lock: moved aside first (a rename
 * is atomic), then deleted, or put back when another follower had replaced it meanwhile.
 */
async function removeStale(
  fs: FsPromises,
  lockPath: string,
  stale: LockHolder,
  token: string,
): Promise<void> {
  const aside = `${lockPath}.stale-${token}`;
  try {
    await fs.rename(lockPath, aside);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return;
    throw error;
  }
  const moved = await readHolder(fs, aside);
  try {
    if (typeof moved === 'object' && moved.token !== stale.token) await fs.link(aside, lockPath);
  } catch (error) {
    if (errnoOf(error) !== 'EEXIST') throw error;
  } finally {
    await fs.unlink(aside).catch(() => undefined);
  }
}

function lockedBy(lockPath: string, checkpoint: string, holder: LockHolder, facts: ProcessFacts) {
  const elsewhere = holder.host !== facts.hostname;
  return new CheckpointLockedError(
    `${checkpoint} is in use by another follower (${holderText(holder)}): two followers of one ` +
      'checkpoint would hand every event twice. Stop that follower first' +
      (elsewhere
        ? `; if it is gone (its machine too), delete ${lockPath}.`
        : ` (its lock is ${lockPath}).`),
    lockPath,
    holder,
  );
}

/**
 * Takes the lock of a checkpoint file: `<checkpoint>.lock`, naming this process (pid, host,
 * when, a token), created whole and at once (written aside, then hard-linked into place, which
 * fails if the lock exists). A lock whose holder provably no longer runs (this machine, its pid
 * gone: a follower killed with SIGKILL) is taken over; any other refuses with
 * CheckpointLockedError naming the holder.
 */
export async function takeLock(
  fs: FsPromises,
  facts: ProcessFacts,
  checkpoint: string,
): Promise<HeldLock> {
  const lockPath = `${checkpoint}.lock`;
  const holder: LockHolder = {
    pid: facts.pid,
    host: facts.hostname,
    since: new Date().toISOString(),
    token: crypto.randomUUID(),
  };
  const staged = `${lockPath}.${holder.token}`;
  await fs.writeFile(staged, `${JSON.stringify(holder)}\n`, { flag: 'wx', mode: 0o644 });
  let tookOverFrom: LockHolder | undefined;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await fs.link(staged, lockPath);
        HELD.add(holder.token);
        return heldLock(fs, lockPath, holder, tookOverFrom);
      } catch (error) {
        if (errnoOf(error) !== 'EEXIST') throw error;
      }
      const current = await readHolder(fs, lockPath);
      if (current === 'gone') continue;
      if (current === 'unreadable') {
        throw new CheckpointLockedError(
          `${lockPath} exists but names no follower; if no follower uses ${checkpoint}, delete it.`,
          lockPath,
          undefined,
        );
      }
      if (!isGone(current, facts)) throw lockedBy(lockPath, checkpoint, current, facts);
      await removeStale(fs, lockPath, current, holder.token);
      tookOverFrom = current;
    }
    throw new CheckpointLockedError(
      `${checkpoint}: other followers kept taking its lock; start one follower only.`,
      lockPath,
      undefined,
    );
  } finally {
    await fs.unlink(staged).catch(() => undefined);
  }
}

function heldLock(
  fs: FsPromises,
  lockPath: string,
  holder: LockHolder,
  tookOverFrom: LockHolder | undefined,
): HeldLock {
  const stillHeld = async () => {
    const current = await readHolder(fs, lockPath);
    return typeof current === 'object' && current.token === holder.token;
  };
  return {
    holder,
    tookOverFrom,
    stillHeld,
    release: async () => {
      HELD.delete(holder.token);
      if (await stillHeld()) await fs.unlink(lockPath).catch(() => undefined);
    },
  };
}

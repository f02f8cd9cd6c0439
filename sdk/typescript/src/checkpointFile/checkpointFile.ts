import { BrandRecordsError } from '../errors/brandRecordsError.js';
import {
  FROM_OLDEST,
  isFollowCheckpoint,
  type FollowCheckpoint,
} from '../events/followCheckpoint.js';
import { CheckpointLockLostError, takeLock, type LockHolder } from './fileLock.js';
import { errnoOf, loadFs, loadProcessFacts, type FsPromises } from './nodeApis.js';

/** A follower's checkpoint in a file, locked for this follower alone while it is open. */
export interface CheckpointFile {
  /** The checkpoint file. */
  readonly path: string;
  /** Its lock (`<path>.lock`), naming this process while the file is open. */
  readonly lockPath: string;
  /** The checkpoint stored last, or FROM_OLDEST when there is no file yet: pass it as `from`. */
  readonly from: FollowCheckpoint;
  /** The follower whose lock was taken over because it no longer ran (killed), if any. */
  readonly tookOverFrom: LockHolder | undefined;
  /**
   * Stores a checkpoint (pass it as `onCheckpoint`): written whole beside the file and renamed
   * over it, so a crash leaves the previous checkpoint, never half of one. Throws
   * CheckpointLockLostError, storing nothing, once the lock no longer names this follower.
   */
  readonly save: (checkpoint: FollowCheckpoint) => Promise<void>;
  /** Releases the lock; `save` refuses from then on. */
  readonly close: () => Promise<void>;
}

async function readCheckpoint(fs: FsPromises, path: string): Promise<FollowCheckpoint> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return FROM_OLDEST;
    // Node's own EISDIR names neither the path nor what to pass instead
    if (errnoOf(error) === 'EISDIR')
      throw new BrandRecordsError(
        `${path} is a directory: name a file for the checkpoint, such as ${path.replace(/[\\/]+$/, '')}/events.checkpoint.`,
      );
    throw error;
  }
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    stored = undefined;
  }
  if (!isFollowCheckpoint(stored))
    throw new BrandRecordsError(`${path} does not hold a checkpoint ({"after", "handled"}).`);
  return stored;
}

/**
 * Opens a follower's checkpoint file (Node.js only): takes its lock first, so one checkpoint
 * has one follower (a second is refused with CheckpointLockedError naming the first: two would
 * hand every event twice), then reads what was stored last. The lock of a follower that no
 * longer runs on this machine (killed) is taken over (`tookOverFrom`). Close it when the
 * follower stops.
 *
 * ```ts
 * const checkpoint = await openCheckpointFile('events.checkpoint');
 * try {
 *   await client.events.follow({ from: checkpoint.from, onCheckpoint: checkpoint.save, onEvent, signal });
 * } finally {
 *   await checkpoint.close();
 * }
 * ```
 */
export async function openCheckpointFile(path: string): Promise<CheckpointFile> {
  const fs = await loadFs();
  const lock = await takeLock(fs, await loadProcessFacts(), path);
  let from: FollowCheckpoint;
  try {
    from = await readCheckpoint(fs, path);
  } catch (error) {
    await lock.release();
    throw error;
  }
  let open = true;
  const staged = `${path}.${lock.holder.token}.tmp`;
  return {
    path,
    lockPath: `${path}.lock`,
    from,
    tookOverFrom: lock.tookOverFrom,
    save: async (checkpoint) => {
      if (!open || !(await lock.stillHeld())) {
        throw new CheckpointLockLostError(
          `${path}: this follower no longer holds its lock (${path}.lock); stopped without storing, so that no event is handed twice.`,
        );
      }
      await fs.writeFile(staged, JSON.stringify(checkpoint), { flag: 'w', mode: 0o644 });
      await fs.rename(staged, path);
    },
    close: async () => {
      if (!open) return;
      open = false;
      await lock.release();
    },
  };
}

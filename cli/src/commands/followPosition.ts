import { existsSync } from 'node:fs';
import { FROM_OLDEST, type FollowCheckpoint } from '@brand-records/client';
import { openCheckpointFile } from '@brand-records/client/checkpoint-file';
import { AppError } from '@brand/shared/errors';

/** Where the follower stands and where that is stored: memory, or a locked checkpoint file. */
export interface Position {
  from: FollowCheckpoint;
  save(checkpoint: FollowCheckpoint): Promise<void>;
  /** How to read on from `after`, for the last line. */
  readOnHint(after: number): string;
  close(): Promise<void>;
}

/**
 * The position to follow from: `--checkpoint FILE` opened with its lock (a second follower of
 * the file is refused: it would print every event twice; a killed one's lock is taken over),
 * or `--after` (0 by default), kept in memory. `--after` with an existing checkpoint file is
 * refused: the file already says where to read on.
 */
export async function openPosition(
  opts: { checkpoint?: string; after?: number },
  notice: (t: string) => void,
): Promise<Position> {
  const file = opts.checkpoint;
  if (file === undefined) {
    const from = { after: opts.after ?? 0, handled: [] };
    return {
      from,
      save: () => Promise.resolve(),
      readOnHint: (after) => `read on with --after ${after}`,
      close: () => Promise.resolve(),
    };
  }
  if (opts.after !== undefined && existsSync(file)) {
    throw new AppError(
      'invalid_parameter',
      `--after cannot move ${file}: it holds the position to read on from. Leave out --after, or give a new file.`,
    );
  }
  const existed = existsSync(file);
  const checkpoint = await openCheckpointFile(file);
  if (checkpoint.tookOverFrom)
    notice(`Took over the lock of pid ${checkpoint.tookOverFrom.pid}, which no longer runs.`);
  notice(`Holding ${checkpoint.lockPath}: no second follower of ${file} can start.`);
  const from = opts.after === undefined ? checkpoint.from : { ...FROM_OLDEST, after: opts.after };
  // a new file names its start at once: stopped before any event, it still reads on from there
  if (!existed) await checkpoint.save(from);
  return {
    from,
    save: checkpoint.save,
    readOnHint: () => `${file} holds it: read on with --checkpoint ${file}`,
    close: checkpoint.close,
  };
}

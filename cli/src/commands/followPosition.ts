import { existsSync, statSync } from 'node:fs';
import { FROM_OLDEST, type FollowCheckpoint } from '@brand-records/client';
import { openCheckpointFile } from '@brand-records/client/checkpoint-file';
import { AppError } from '@brand/shared/errors';
import { UsageError } from '../usageError';

/** Where the follower stands and where that is stored: memory, or a locked checkpoint file. */
export interface Position {
  from: FollowCheckpoint;
  save(checkpoint: FollowCheckpoint): Promise<void>;
  /**
   * Called with each event's brand before it is printed (an API key's brand is known from its
   * events only): refuses one not the file's brand, and records it in a file that had none.
   */
  checkBrand(brandId: string): void;
  /** How to read on from `after`, for the last line. */
  readOnHint(after: number): string;
  close(): Promise<void>;
}

/** The filters a position depends on: the same position read with others skips or repeats events. */
export type PositionFilters = { type?: string; record?: string; since?: string };

/**
 * What a checkpoint file of brandctl holds besides the position: the brand whose feed the
 * position is in and the filters it was read with (`--until` is left out: moving it on is how a
 * follower reads what lies between). A file without them (written before they were recorded,
 * or over an API key before its first event) is taken as this follow's and gets them.
 */
interface Scope {
  brand?: string;
  filters?: PositionFilters;
}

function scopeOf(stored: FollowCheckpoint): Scope {
  const { brand, filters } = stored as FollowCheckpoint & Scope;
  return {
    brand: typeof brand === 'string' ? brand : undefined,
    filters: typeof filters === 'object' && filters !== null ? filters : undefined,
  };
}

const sameFilters = (a: PositionFilters, b: PositionFilters) =>
  a.type === b.type && a.record === b.record && a.since === b.since;

const describeFilters = (f: PositionFilters) =>
  Object.entries(f)
    .map(([k, v]) => `--${k} ${v}`)
    .join(' ') || 'no filters';

/**
 * The position to follow from: `--checkpoint FILE` opened with its lock (a second follower of
 * the file is refused: it would print every event twice; a killed one's lock is taken over),
 * or `--after` (0 by default), kept in memory. `--after` with an existing checkpoint file is
 * refused: the file already says where to read on. A file holding another brand's position,
 * or one read with other filters, is refused: read on from it, this follow would skip events.
 */
export async function openPosition(
  opts: { checkpoint?: string; after?: number; brand?: string; filters: PositionFilters },
  notice: (t: string) => void,
): Promise<Position> {
  const file = opts.checkpoint;
  if (file === undefined) {
    const from = { after: opts.after ?? 0, handled: [] };
    return {
      from,
      save: () => Promise.resolve(),
      checkBrand: () => undefined,
      readOnHint: (after) => `read on with --after ${after}`,
      close: () => Promise.resolve(),
    };
  }
  // The checkpoint reader names the path of a directory, but not the flag to change.
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--checkpoint ${file} is a directory; give a file path`);
  if (opts.after !== undefined && existsSync(file)) {
    throw new AppError(
      'invalid_parameter',
      `--after cannot move ${file}: it holds the position to read on from. Leave out --after, or give a new file.`,
    );
  }
  const existed = existsSync(file);
  const checkpoint = await openCheckpointFile(file);
  const stored = scopeOf(checkpoint.from);
  let refusal: string | undefined;
  if (stored.brand !== undefined && opts.brand !== undefined && stored.brand !== opts.brand)
    refusal = `${file} holds the position of brand ${stored.brand}, not ${opts.brand}'s.`;
  else if (stored.filters !== undefined && !sameFilters(stored.filters, opts.filters))
    refusal = `${file} holds a position read with other filters (${describeFilters(stored.filters)}; this follow: ${describeFilters(opts.filters)}): read on from it, this follow would skip events.`;
  if (refusal !== undefined) {
    await checkpoint.close();
    throw new AppError('precondition_failed', `${refusal} Give another --checkpoint file.`);
  }
  if (existed && stored.brand === undefined && stored.filters === undefined)
    notice(
      `${file} records no brand or filters (an older brandctl wrote it): taken as this follow's, and recorded from now on.`,
    );
  if (checkpoint.tookOverFrom)
    notice(`Took over the lock of pid ${checkpoint.tookOverFrom.pid}, which no longer runs.`);
  notice(`Holding ${checkpoint.lockPath}: no second follower of ${file} can start.`);
  const scope: Scope = { brand: opts.brand ?? stored.brand, filters: opts.filters };
  const save = (at: FollowCheckpoint) =>
    checkpoint.save({ after: at.after, handled: at.handled, ...scope });
  const from: FollowCheckpoint =
    opts.after === undefined
      ? { after: checkpoint.from.after, handled: checkpoint.from.handled }
      : { ...FROM_OLDEST, after: opts.after };
  // a new file names its start (and an old one its brand) at once: stopped before any event,
  // it still reads on from there
  await save(from);
  return {
    from,
    save,
    checkBrand: (brandId) => {
      if (scope.brand === undefined) scope.brand = brandId;
      else if (scope.brand !== brandId)
        throw new AppError(
          'precondition_failed',
          `${file} holds the position of brand ${scope.brand}, but this key reads brand ${brandId}'s feed: read on from it, this follow would skip events. Give another --checkpoint file.`,
        );
    },
    readOnHint: () => `${file} holds it: read on with --checkpoint ${file}`,
    close: checkpoint.close,
  };
}

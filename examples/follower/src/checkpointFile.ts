import { readFile, rename, writeFile } from 'node:fs/promises';
import { FROM_OLDEST, isFollowCheckpoint, type FollowCheckpoint } from '@brand-records/client';

/**
 * The follower's checkpoint in a file, written whole to a temporary file and renamed over the
 * old one (a rename is atomic on one filesystem), so a crash mid-write leaves the previous
 * checkpoint, never half of one. A real integration keeps it in its own database, in the same
 * transaction as what it does with each event; then "once" holds for its effects too.
 */
export async function loadCheckpoint(file: string): Promise<FollowCheckpoint> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return FROM_OLDEST;
    throw err;
  }
  const stored: unknown = JSON.parse(text);
  if (!isFollowCheckpoint(stored)) throw new Error(`${file} does not hold a checkpoint`);
  return stored;
}

export async function saveCheckpoint(file: string, checkpoint: FollowCheckpoint): Promise<void> {
  await writeFile(`${file}.tmp`, JSON.stringify(checkpoint));
  await rename(`${file}.tmp`, file);
}

import { lstatSync, mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The most the cache folder keeps. One process's file is 1-5 MB; every checkout, entry point
 * and flag set has its own, so without a bound a machine that runs many checkouts (a CI runner
 * cloning afresh each time) would fill its temporary directory. 64 MB keeps a few checkouts'
 * processes warm and fits the chart's 64 Mi /tmp with room to spare (a pod runs one entry).
 */
const FOLDER_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Makes `directory` (mode 700) if need be; true when it is a real folder only this user may
 * change. What the folder holds runs as the process's code: a link, another user's folder, or
 * one others may write (planted under a shared /tmp) must not be used.
 */
export function ownedByThisUserAlone(directory: string): boolean {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stats = lstatSync(directory);
    const uid = process.getuid?.();
    return (
      stats.isDirectory() && (uid === undefined || stats.uid === uid) && (stats.mode & 0o022) === 0
    );
  } catch {
    return false;
  }
}

/**
 * Deletes the least recently written files of `directory` (a start that reads a file marks it
 * written: codeCacheHook.ts) until the folder holds at most `maxBytes`, never `keep`.
 */
export function pruneFolder(directory: string, keep: string, maxBytes = FOLDER_MAX_BYTES): void {
  try {
    const files = readdirSync(directory).flatMap((name) => {
      const file = path.join(directory, name);
      try {
        const stats = statSync(file);
        return stats.isFile() ? [{ file, size: stats.size, at: stats.mtimeMs }] : [];
      } catch {
        return []; // deleted meanwhile
      }
    });
    let total = files.reduce((sum, f) => sum + f.size, 0);
    for (const f of files.sort((a, b) => a.at - b.at)) {
      if (total <= maxBytes) break;
      if (f.file === keep) continue;
      try {
        unlinkSync(f.file);
        total -= f.size;
      } catch {
        // another process deleted or replaced it
      }
    }
  } catch {
    // an unreadable folder: the next write tries again
  }
}

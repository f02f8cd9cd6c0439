import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { readSecretFile } from '../secretFile';
import { UsageError } from '../usageError';

/** What marks a file as one `seed --key-file` wrote, and so one it may replace. */
const MARK = /^DEMO_KEY_ID=/m;

/** A --key-file checked and made ready before any key is created. */
export interface DemoKeyFile {
  /** The file's text when it holds an earlier run's key ('' for a new or empty file). */
  kept: string;
  /** Puts `text` in place of the file, mode 600, in one rename. */
  write(text: string): void;
  /** Removes the temporary file when nothing is written (a reused key, a failure). */
  discard(): void;
}

/**
 * Checks --key-file before a key exists, so a bad path never leaves a live key that was
 * never shown: a directory, or an existing file that is neither empty nor a demo key file
 * this command wrote, is refused (usage error; the file is left alone). Then it creates the
 * temporary file beside it (mode 600), which proves the directory writable; `write` renames
 * it over the path, so the file is replaced whole and is mode 600 even if it was not.
 */
export function openDemoKeyFile(file: string): DemoKeyFile {
  let kept = '';
  const existing = statOrUndefined(file);
  if (existing?.isDirectory())
    throw new UsageError(`--key-file ${file} is a directory; give a file path`);
  if (existing) {
    kept = readSecretFile(file);
    if (kept.trim() !== '' && !MARK.test(kept))
      throw new UsageError(
        `--key-file ${file} exists and is not a demo key file of brandctl seed; not overwriting it (remove it or give another path)`,
      );
  }
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  let open = true;
  const discard = (): void => {
    if (open) closeSync(fd);
    open = false;
    rmSync(tmp, { force: true });
  };
  return {
    kept,
    write(text: string): void {
      try {
        writeSync(fd, text);
        closeSync(fd);
        open = false;
        chmodSync(tmp, 0o600); // whatever the umask did
        renameSync(tmp, file);
      } catch (err) {
        discard();
        throw err;
      }
    },
    discard,
  };
}

function statOrUndefined(file: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`--key-file ${file}: ${(err as Error).message}`);
  }
}

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from './usageError';

/**
 * The most a secret file may hold. Tokens and keys are tens of bytes; a bound keeps a wrong
 * path (a log, /dev/zero) from being read whole into memory and sent on as a header.
 */
const MAX_SECRET_FILE_BYTES = 4096;

/**
 * The text of a secret file ("-": standard input), as is: reads at most one byte past the
 * bound and refuses a larger file, a directory or an unreadable path as usage errors.
 */
export function readSecretFile(path: string): string {
  const name = path === '-' ? 'standard input' : path;
  let fd: number;
  try {
    fd = path === '-' ? 0 : openSync(path, 'r');
  } catch (err) {
    throw new UsageError(`cannot read ${name}: ${(err as Error).message}`);
  }
  try {
    if (fstatSync(fd).isDirectory())
      throw new UsageError(`${name} is a directory; give a file path`);
    const buf = Buffer.alloc(MAX_SECRET_FILE_BYTES + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > MAX_SECRET_FILE_BYTES)
      throw new UsageError(
        `${name} is larger than ${MAX_SECRET_FILE_BYTES} bytes; it does not hold a token or key`,
      );
    return buf.toString('utf8', 0, n);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${name}: ${(err as Error).message}`);
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

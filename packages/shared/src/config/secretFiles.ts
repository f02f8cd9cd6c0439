import { accessSync, constants, readFileSync, statSync } from 'node:fs';

/**
 * Why a file named by a setting cannot be read ("no such file", "permission denied", a
 * directory), or undefined when it can. Checked at start, so a missing secret mount is a config
 * error that names the variable, not a connection failure minutes later; a directory (the
 * Secret's mount given instead of its key's file) passes the access check but no read.
 */
export function unreadableFileReason(file: string): string | undefined {
  try {
    accessSync(file, constants.R_OK);
    return statSync(file).isDirectory()
      ? `cannot read ${file}: a directory, not a file`
      : undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `cannot read ${file}: no such file`;
    if (code === 'EACCES') return `cannot read ${file}: permission denied`;
    return `cannot read ${file}: ${code ?? String(err)}`;
  }
}

/** A PEM or secret file's text; a trailing newline (as editors and kubectl write) is dropped. */
export function readSecretFile(file: string): string {
  return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
}

/**
 * A secret or CA file read again whenever it changed, so a rotated credential reaches the next
 * connection without a restart (issue 60): kubelet replaces a mounted Secret's or ConfigMap's
 * files by swapping a link, a Vault agent rewrites its file. Each call compares the file's
 * identity (device, inode, size, modification time) with the last read: one stat, and calls
 * happen when a connection opens, never per request. While the file is briefly missing or
 * unreadable (mid-swap), the last text read is kept; a file never read throws.
 */
export function liveSecretFile(file: string): () => string {
  let seen = '';
  let text: string | undefined;
  return () => {
    try {
      const s = statSync(file);
      const identity = `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
      if (identity !== seen || text === undefined) {
        text = readSecretFile(file);
        seen = identity;
      }
    } catch (err) {
      if (text === undefined) throw err;
    }
    return text;
  };
}

/**
 * Defines `property` of `target` as a getter of the file's current text (liveSecretFile), for
 * client options a library reads each time it connects (kafkajs' sasl and ssl, pg's and
 * ioredis' tls options). Enumerable, so a spread or Object.assign copies the current text.
 */
export function defineLiveFileProperty(target: object, property: string, file: string): void {
  const read = liveSecretFile(file);
  Object.defineProperty(target, property, { get: read, enumerable: true, configurable: true });
}

import { accessSync, constants, readFileSync } from 'node:fs';

/**
 * Why a file named by a setting cannot be read ("no such file", "permission denied"), or
 * undefined when it can. Checked at start, so a missing secret mount is a config error that
 * names the variable, not a connection failure minutes later.
 */
export function unreadableFileReason(file: string): string | undefined {
  try {
    accessSync(file, constants.R_OK);
    return undefined;
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

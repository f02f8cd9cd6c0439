import { CALLER_TOKEN_NAMES } from './callerTokens';
import { ASSERTION_PUBLIC_KEY_NAMES } from './consoleEnv';
import { readSecretFile, unreadableFileReason } from './secretFiles';

/**
 * The settings read once at start that may also come from a file, as `<NAME>_FILE` (the
 * convention of container images and orchestrators: a mounted Secret, a Vault agent's file), so
 * a secret need not sit in the process's environment, where `/proc/<pid>/environ`, a crash
 * report or a child process can read it. The connection credentials are not here: they have
 * `_FILE` settings of their own, read again when they change (secretFiles.ts).
 */
export const START_SECRET_NAMES: readonly string[] = [
  ...CALLER_TOKEN_NAMES,
  'CURSOR_SECRET',
  'CURSOR_SECRETS_PREVIOUS',
  'WEBHOOK_SECRET_KEY',
  'WEBHOOK_SECRET_KEYS_PREVIOUS',
  'CONSOLE_ASSERTION_PRIVATE_KEY',
  ...ASSERTION_PUBLIC_KEY_NAMES,
  'SMTP_URL',
];

/**
 * `env` with each START_SECRET_NAMES setting given as `<NAME>_FILE` read into `<NAME>`
 * (readSecretFile: one trailing newline dropped), and the problems found: a file
 * that cannot be read, or a setting given both ways (which one would win is a guess). Nothing
 * else of `env` changes, and a file's text is never part of a problem.
 */
export function withStartSecretFiles(env: NodeJS.ProcessEnv): {
  env: NodeJS.ProcessEnv;
  problems: string[];
} {
  const out: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  for (const name of START_SECRET_NAMES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (env[name] !== undefined && env[name] !== '') {
      problems.push(`${name}_FILE: set ${name} or ${name}_FILE, not both`);
      continue;
    }
    const reason = unreadableFileReason(file);
    if (reason) {
      problems.push(`${name}_FILE: ${reason}`);
      continue;
    }
    out[name] = readSecretFile(file);
  }
  return { env: out, problems };
}

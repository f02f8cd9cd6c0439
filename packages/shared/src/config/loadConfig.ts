import type { ZodType } from 'zod';
import { fieldIssues } from '../errors/fieldIssues';
import { withStartSecretFiles } from './startSecretFiles';

/** Thrown by loadConfig; its message lists every bad variable, one per line. */
export class ConfigError extends Error {
  override readonly name = ConfigError.name;
}

/**
 * Parses process.env (or any record) with a zod schema. Call it once, in main.ts: parsing
 * at import time would make every module that imports config depend on the environment.
 * A secret read at start may be given as a file (`<NAME>_FILE`, startSecretFiles.ts).
 * Throws ConfigError naming each variable that is missing or malformed.
 */
export function loadConfig<T>(schema: ZodType<T>, env: NodeJS.ProcessEnv): T {
  const files = withStartSecretFiles(env);
  const result = schema.safeParse(files.env);
  if (result.success && files.problems.length === 0) return result.data;
  const issues = result.success ? [] : fieldIssues(result.error);
  const lines = [
    ...files.problems.map((p) => `  ${p}`),
    ...issues.map((i) => `  ${i.field || '(root)'}: ${i.message}`),
  ];
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

import type { ZodType } from 'zod';
import { fieldIssues } from '../errors/fieldIssues';

/** Thrown by loadConfig; its message lists every bad variable, one per line. */
export class ConfigError extends Error {
  override readonly name = ConfigError.name;
}

/**
 * Parses process.env (or any record) with a zod schema. Call it once, in main.ts: parsing
 * at import time would make every module that imports config depend on the environment.
 * Throws ConfigError naming each variable that is missing or malformed.
 */
export function loadConfig<T>(schema: ZodType<T>, env: NodeJS.ProcessEnv): T {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = fieldIssues(result.error).map((i) => `  ${i.field || '(root)'}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

import { z, type ZodType } from 'zod';

/**
 * "true"/"1"/"yes" → true, "false"/"0"/"no"/"" → false. Environment variables are
 * strings, and z.coerce.boolean() would read "false" as true.
 */
export const boolEnv = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const s = v.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off', ''].includes(s)) return false;
  ctx.addIssue({ code: 'custom', message: `expected true or false, got "${v}"` });
  return z.NEVER;
});

/** A TCP port; 0 lets the OS choose (tests read the bound port from the startup log). */
export const portEnv = z.coerce.number().int().min(0).max(65535);

/** "a, b,,c" → ["a", "b", "c"]; unset or empty → []. */
export const commaListEnv = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  );

/** A positive integer of milliseconds. */
export const msEnv = z.coerce.number().int().positive();

export const logLevelEnv = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** The environment a deployment serves; keys of the other one are invalid_key there. */
export const serviceEnvironmentEnv = z.enum(['live', 'test']);

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
  const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

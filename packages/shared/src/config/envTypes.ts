import { z } from 'zod';

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

/**
 * An optional setting where an empty value means unset (env files and compose files often
 * write `NAME=` for "not set"); set, it must not be blank.
 */
export const optionalEnv = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

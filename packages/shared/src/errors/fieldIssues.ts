import type { ZodError, ZodType } from 'zod';
import { AppError, type FieldIssue } from './appError';
import type { ErrorCode } from './codes';
import { MAX_ECHO } from './quoteInput';

/** Most field issues one error reports; the rest are counted, so a hostile body stays small. */
export const MAX_ISSUES = 10;

/**
 * The one translation of zod issues into field-level problems, for every input the system
 * validates (REST and MCP parameters, admin requests, configuration). An unknown key is one
 * issue per key, named by the key; `unknownKey` words its message, `root` the message for a
 * value that is not even an object. Field names (client input when a key is unknown) are
 * cut to MAX_ECHO characters and at most MAX_ISSUES issues are listed.
 */
export function fieldIssues(
  error: ZodError,
  words: { unknownKey?: string; root?: string } = {},
): FieldIssue[] {
  const all = error.issues.flatMap((issue): FieldIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      const base = issue.path.join('.');
      return issue.keys.map((key) => ({
        field: (base ? `${base}.${key}` : key).slice(0, MAX_ECHO),
        message: words.unknownKey ?? 'unknown field.',
      }));
    }
    if (issue.path.length === 0 && words.root) return [{ field: '', message: words.root }];
    return [{ field: issue.path.join('.').slice(0, MAX_ECHO), message: issue.message }];
  });
  // One rule's several checks may fail together with the same words (1e21 is neither an integer
  // nor at most 200): the field is said once (the outside probe, 2026-11-30, read it twice).
  const seen = new Set<string>();
  const distinct = all.filter((d) => {
    const key = JSON.stringify([d.field, d.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (distinct.length <= MAX_ISSUES) return distinct;
  const more = distinct.length - MAX_ISSUES;
  return [...distinct.slice(0, MAX_ISSUES), { field: '', message: `... and ${more} more.` }];
}

/** "field: message" pairs joined for a one-line error message. */
export function describeIssues(details: FieldIssue[], separator = '; '): string {
  return details
    .map((d) =>
      d.field && !d.message.startsWith(d.field) ? `${d.field}: ${d.message}` : d.message,
    )
    .join(separator);
}

/**
 * Parses `input`, or throws AppError(`code`, default validation_failed) carrying one
 * detail per offending field.
 */
export function parseOrThrow<T>(
  schema: ZodType<T>,
  input: unknown,
  code: ErrorCode = 'validation_failed',
): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = fieldIssues(result.error);
  throw new AppError(code, describeIssues(details), { details });
}

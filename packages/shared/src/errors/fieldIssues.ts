import type { ZodError, ZodType } from 'zod';
import { AppError, type FieldIssue } from './appError';
import type { ErrorCode } from './codes';

/**
 * The one translation of zod issues into field-level problems, for every input the system
 * validates (REST and MCP parameters, admin requests, configuration). An unknown key is one
 * issue per key, named by the key; `unknownKey` words its message.
 */
export function fieldIssues(error: ZodError, unknownKey = 'unknown field.'): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      const base = issue.path.join('.');
      return issue.keys.map((key) => ({
        field: base ? `${base}.${key}` : key,
        message: unknownKey,
      }));
    }
    return [{ field: issue.path.join('.'), message: issue.message }];
  });
}

/** "field: message" pairs joined for a one-line error message. */
export function describeIssues(details: FieldIssue[]): string {
  return details
    .map((d) =>
      d.field && !d.message.startsWith(d.field) ? `${d.field}: ${d.message}` : d.message,
    )
    .join('; ');
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

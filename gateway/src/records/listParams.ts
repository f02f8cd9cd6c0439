import { z } from 'zod';
import { AppError, type FieldIssue } from '@brand/shared/errors';
import {
  DEFAULT_LIMIT,
  isCursorShaped,
  LIST_PARAM_MESSAGES,
  MAX_LIMIT,
  normalizeSince,
  parseLimitString,
} from '@brand/shared/resources';

/**
 * List parameters as REST (query strings) and MCP (JSON arguments) receive them: the same
 * rules and messages for both, so an assistant and an HTTP client are refused alike.
 */
const limit = z
  .number({ error: LIST_PARAM_MESSAGES.limit })
  .int({ error: LIST_PARAM_MESSAGES.limit })
  .min(1, { error: LIST_PARAM_MESSAGES.limit })
  .max(MAX_LIMIT, { error: LIST_PARAM_MESSAGES.limit })
  .meta({ description: `Page size, 1 to ${MAX_LIMIT}.`, default: DEFAULT_LIMIT, examples: [100] });

const cursor = z
  .string({ error: LIST_PARAM_MESSAGES.cursor })
  .refine(isCursorShaped, { error: LIST_PARAM_MESSAGES.cursor })
  .meta({
    description:
      'The next_cursor of the previous page; returns the page after it. Opaque: pass it back unchanged.',
  });

const since = z
  .string({ error: LIST_PARAM_MESSAGES.since })
  .refine((s) => normalizeSince(s) !== undefined, { error: LIST_PARAM_MESSAGES.since })
  .meta({
    format: 'date-time',
    description:
      'Only records created strictly after this RFC 3339 time. Works alone or with cursor; a cursor remembers the since it was issued under.',
    examples: ['2026-11-01T00:00:00Z'],
  });

/**
 * A query-string limit through the shared rule (digits only, so "1.5", "-1", " 5" and "1e2"
 * are refused, never coerced); anything it refuses stays a string and fails `limit` below
 * with the one message.
 */
const limitFromQuery = (v: unknown): unknown =>
  typeof v === 'string' ? (parseLimitString(v) ?? v) : v;

/** GET /api/v1/{resource} query parameters. Unknown parameters are refused, to catch typos. */
export const ListQuery = z.strictObject({
  limit: z.preprocess(limitFromQuery, limit).optional(),
  cursor: cursor.optional(),
  since: since.optional(),
});

/** Arguments of the six list_* tools. */
export const ListArguments = z.strictObject({
  limit: limit.optional(),
  cursor: cursor.optional(),
  since: since.optional(),
});

export type ListParams = z.infer<typeof ListArguments>;

/**
 * Validates list parameters. Failures become invalid_cursor when only the cursor is
 * wrong, otherwise invalid_parameter, with one detail per offending parameter.
 */
export function parseListParams(
  schema: typeof ListQuery | typeof ListArguments,
  input: unknown,
): ListParams {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const details: FieldIssue[] = result.error.issues.flatMap((issue): FieldIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: key,
        message: 'unknown parameter; the supported parameters are limit, cursor and since.',
      }));
    }
    if (issue.path.length === 0) return [{ field: '', message: 'parameters must be an object.' }];
    return [{ field: issue.path.join('.'), message: issue.message }];
  });
  const onlyCursor = details.every((d) => d.field === 'cursor');
  return fail(onlyCursor ? 'invalid_cursor' : 'invalid_parameter', details);
}

function fail(code: 'invalid_cursor' | 'invalid_parameter', details: FieldIssue[]): never {
  const message = details
    .map((d) =>
      d.field && !d.message.startsWith(d.field) ? `${d.field}: ${d.message}` : d.message,
    )
    .join(' ');
  throw new AppError(code, message, { details });
}

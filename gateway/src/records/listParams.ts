import { z } from 'zod';
import { AppError, describeIssues, fieldIssues } from '@brand/shared/errors';
import {
  DEFAULT_LIMIT,
  isCursorShaped,
  LIST_PARAM_MESSAGES,
  MAX_LIMIT,
  normalizeSince,
} from '@brand/shared/resources';

/**
 * List parameters as REST (query strings) and MCP (JSON arguments) receive them: the same
 * rules and messages for both, so an assistant and an HTTP client are refused alike.
 */
export const limit = z
  .number({ error: LIST_PARAM_MESSAGES.limit })
  .int({ error: LIST_PARAM_MESSAGES.limit })
  .min(1, { error: LIST_PARAM_MESSAGES.limit })
  .max(MAX_LIMIT, { error: LIST_PARAM_MESSAGES.limit })
  .meta({ description: `Page size, 1 to ${MAX_LIMIT}.`, default: DEFAULT_LIMIT, examples: [100] });

export const cursor = z
  .string({ error: LIST_PARAM_MESSAGES.cursor })
  .refine(isCursorShaped, { error: LIST_PARAM_MESSAGES.cursor })
  .meta({
    description:
      'The next_cursor of the previous page; returns the page after it. Opaque: pass it back unchanged.',
  });

export const since = z
  .string({ error: LIST_PARAM_MESSAGES.since })
  .refine((s) => normalizeSince(s) !== undefined, { error: LIST_PARAM_MESSAGES.since })
  .meta({
    format: 'date-time',
    description:
      'Older, superseded by cursor: only records created strictly after this RFC 3339 time. Works alone or with cursor; a ' +
      'cursor remembers the since it was issued under. Warning: it filters on the timestamp alone, so rows sharing the ' +
      "timestamp of a page's last row are skipped (since set to that row's created_at returns only newer rows, never the " +
      'rest of the rows created at the same instant). To read every record exactly once, follow next_cursor.',
    examples: ['2026-11-01T00:00:00Z'],
  });

/** Arguments of the six list_* tools. */
export const ListArguments = z.strictObject({
  limit: limit.optional(),
  cursor: cursor.optional(),
  since: since.optional(),
});

export type ListParams = z.infer<typeof ListArguments>;

/** A schema producing list parameters: ListArguments, or a transport's own form of it. */
export type ListParamsSchema = z.ZodType<ListParams, unknown>;

/**
 * Validates list parameters. Failures become invalid_cursor when only the cursor is
 * wrong, otherwise invalid_parameter, with one detail per offending parameter.
 */
export function parseListParams(schema: ListParamsSchema, input: unknown): ListParams {
  // absent is no parameters; null (an assistant's `arguments: null`) is not an object
  const result = schema.safeParse(input === undefined ? {} : input);
  if (result.success) return result.data;
  const details = fieldIssues(result.error, {
    unknownKey: 'unknown parameter; the supported parameters are limit, cursor and since.',
    root: 'parameters must be an object.',
  });
  const onlyCursor = details.every((d) => d.field === 'cursor');
  throw new AppError(
    onlyCursor ? 'invalid_cursor' : 'invalid_parameter',
    describeIssues(details, ' '),
    {
      details,
    },
  );
}

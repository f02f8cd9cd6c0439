import { AppError } from '@brand/shared/errors';

/** validation_failed naming one field, worded "field: message" like every other refusal. */
export function fieldError(field: string, message: string): AppError {
  return new AppError('validation_failed', `${field}: ${message}`, {
    details: [{ field, message }],
  });
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * An RFC 3339 timestamp with its offset ("2026-11-20T14:00:00Z", seconds optional), or
 * validation_failed naming `field`: a time without an offset would be read in the server's
 * zone, which the caller cannot know.
 */
export function parseTimestamp(value: string, field: string): Date {
  const at = RFC3339.test(value) ? new Date(value) : undefined;
  if (at === undefined || Number.isNaN(at.getTime())) {
    throw fieldError(field, 'must be an RFC 3339 time with its offset, e.g. 2026-11-20T14:00:00Z');
  }
  return at;
}

/** A time as people read it in summaries: RFC 3339 to the second, UTC. */
export const toSecond = (at: Date): string => `${at.toISOString().slice(0, 19)}Z`;

import { isAppError } from '@brand/shared/errors';
import { ConsoleHttpError } from './consoleHttpError';
import { firstCharacters } from '@brand/shared/text';

/**
 * The named query parameters as trimmed text ('' when absent). A parameter given twice
 * (?since=a&since=b) or as an object is refused in words (400 validation_failed) rather than
 * one of its values picked silently.
 */
export function queryFields<K extends string>(
  query: Record<string, unknown>,
  names: readonly K[],
): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const name of names) {
    const v = query[name];
    if (v !== undefined && typeof v !== 'string') {
      throw new ConsoleHttpError(400, 'validation_failed', `${name}: give it once.`);
    }
    out[name] = firstCharacters((v ?? '').trim(), 300);
  }
  return out;
}

/** Runs a shared parser, its refusal (validation_failed, invalid_cursor) a 400 with its sentence. */
export function asRefusal<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (isAppError(err)) throw new ConsoleHttpError(400, err.code, err.message);
    throw err;
  }
}

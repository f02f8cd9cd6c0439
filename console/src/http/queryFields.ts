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

/** A filter the page refused: the stable code (X-Console-Error) and the sentence to show. */
export interface FilterRefusal {
  code: string;
  message: string;
}

/**
 * A filter page's query as typed, and its refusal when it is not one (a parameter given twice,
 * or `check`'s ConsoleHttpError 400 or shared parser's refusal), for the page to show above
 * its form with what was typed kept: the probe of 2026-11-30 found a mistyped filter answered
 * by a bare error page that threw the form and the typed text away. Anything else is thrown on.
 */
export function filterQuery<K extends string>(
  query: Record<string, unknown>,
  names: readonly K[],
  check: (fields: Record<K, string>) => void,
): { fields: Record<K, string>; refusal?: FilterRefusal } {
  let fields: Record<K, string>;
  try {
    fields = queryFields(query, names);
  } catch (err) {
    // a parameter given twice: the form shows the first value typed
    const first = (v: unknown) => [v].flat().find((x): x is string => typeof x === 'string');
    const kept = Object.fromEntries(names.map((n) => [n, first(query[n])]));
    return { fields: queryFields(kept, names), refusal: refusalOf(err) };
  }
  try {
    check(fields);
    return { fields };
  } catch (err) {
    return { fields, refusal: refusalOf(err) };
  }
}

function refusalOf(err: unknown): FilterRefusal {
  if (err instanceof ConsoleHttpError && err.status === 400)
    return { code: err.code, message: err.message };
  if (isAppError(err)) return { code: err.code, message: err.message };
  throw err;
}

/*
 * The SCIM expressions scimmy parses (filters, attribute lists, PATCH paths), bounded before it
 * sees them. Its filter lexer matches a string with `"(?:[^"]|\\.|\n)*"`, whose alternatives
 * overlap on backslashes and line breaks: on a string left open, the backtracking doubles with
 * each of them (40 backslashes took 2 s, 60 take hours), on the one thread that serves every
 * brand's console. No directory needs them: a line break is never part of a filter, and group
 * names hold a backslash or two at most ("CORP\Sales").
 */

/** Longer than any filter a provider sends (a userName or externalId compared, or a few). */
const MAX_LENGTH = 2048;
/** A few escaped quotes or a domain's backslash; the backtracking stays under a millisecond. */
const MAX_BACKSLASHES = 8;
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;

/** Why scimmy must not parse `expression`, or undefined when it may. */
export function expressionRefusal(expression: string): string | undefined {
  if (expression.length > MAX_LENGTH) return `is longer than ${MAX_LENGTH} characters`;
  if (CONTROL.test(expression)) return 'holds a control character';
  if (expression.split('\\').length - 1 > MAX_BACKSLASHES) {
    return `holds more than ${MAX_BACKSLASHES} backslashes`;
  }
  return undefined;
}

/** What a request gives scimmy to parse, each with the SCIM error type its refusal carries. */
export function expressionsOf(
  method: string,
  path: string,
  query: unknown,
  body: unknown,
): { scimType: 'invalidFilter' | 'invalidPath'; where: string; value: string }[] {
  const found: ReturnType<typeof expressionsOf> = [];
  const strings = (where: string, value: unknown) => {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string') found.push({ scimType: 'invalidFilter', where, value: v });
    }
  };
  // Every query parameter: filter, attributes, excludedAttributes and whatever scimmy reads next.
  if (query && typeof query === 'object') {
    for (const [name, value] of Object.entries(query)) strings(name, value);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return found;
  const b = body as Record<string, unknown>;
  if (method === 'POST' && /\/\.search\/?$/.test(path)) {
    for (const name of ['filter', 'attributes', 'excludedAttributes']) strings(name, b[name]);
  }
  if (method === 'PATCH' && Array.isArray(b.Operations)) {
    for (const op of b.Operations as unknown[]) {
      const p = op && typeof op === 'object' ? (op as { path?: unknown }).path : undefined;
      if (typeof p === 'string') found.push({ scimType: 'invalidPath', where: 'path', value: p });
    }
  }
  return found;
}

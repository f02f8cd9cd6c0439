/**
 * Request headers in any of the forms servers hand them over: a fetch `Headers` (edge
 * runtimes, `Request.headers`), Node's `IncomingHttpHeaders` (lower-case names, arrays for
 * repeated headers), or any plain object with names in any letter case.
 */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Every value sent under `name` (case-insensitive). More than one value means the header
 * came twice, which no delivery header may. `Headers` joins repeats with ", " itself; the
 * strict formats then refuse the joined value.
 */
export function headerValues(headers: WebhookHeaders, name: string): string[] {
  if (typeof headers.get === 'function') {
    const value = (headers as { get(name: string): string | null }).get(name);
    return value === null ? [] : [value];
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.map(String));
  }
  return values;
}

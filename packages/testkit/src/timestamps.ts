/** RFC 3339 UTC with exactly six fractional digits: what PostgreSQL and the API return. */
export const API_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Formats microseconds since the epoch as an API timestamp (a JS Date alone keeps only ms). */
export function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const extra = String(micros - ms * 1000).padStart(3, '0');
  return new Date(ms).toISOString().replace('Z', `${extra}Z`);
}

/** Microseconds since the epoch of an API timestamp. */
export function parseMicros(timestamp: string): number {
  if (!API_TIMESTAMP.test(timestamp)) throw new Error(`not an API timestamp: ${timestamp}`);
  return Date.parse(`${timestamp.slice(0, 23)}Z`) * 1000 + Number(timestamp.slice(23, 26));
}

/** Orders records as the API does: created_at desc, then id desc compared bytewise. */
export function newestFirst<T extends { created_at: string; id: string }>(a: T, b: T): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

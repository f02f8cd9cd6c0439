/** An RFC 3339 time as people read it, in UTC ("2026-11-23 11:42 UTC"); "" stays "". */
export function formatTime(value: string): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

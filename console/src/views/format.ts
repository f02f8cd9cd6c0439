/** An RFC 3339 time as people read it, in UTC ("2026-11-23 11:42 UTC"); "" stays "". */
export function formatTime(value: string): string {
  return formatUtc(value, 16);
}

/** The same to the second ("2026-11-23 11:42:07 UTC"), for attempts and what was sent when. */
export function formatTimeToSecond(value: string): string {
  return formatUtc(value, 19);
}

function formatUtc(value: string, length: number): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  return `${d.toISOString().slice(0, length).replace('T', ' ')} UTC`;
}

/** A byte count as people read it ("512 bytes", "4 KB", "50 MB"), in powers of 1024. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/**
 * How long until an instant, as people read a countdown: "2 d 4 h", "3 h 12 min",
 * "4 min 05 s", "12 s". The server renders it; /static/countdown.js ticks the same words
 * (pages/keys/input.test.ts checks the two agree). Zero or less is "0 s".
 */
export function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${String(sec).padStart(2, '0')} s`;
  return `${sec} s`;
}

/**
 * How long ago an instant was, to the second while it is recent: "12 s ago", "4 min 05 s ago",
 * "3 h 12 min ago", "2 d 4 h ago"; an instant ahead (clocks apart) is "just now". Issue 35: a
 * key's "last used" showed only the minute, so nobody could tell whether a rolled key was
 * still in use right now.
 */
export function formatAgo(at: string, now: number): string {
  const ms = now - Date.parse(at);
  if (Number.isNaN(ms)) return at;
  return ms < 1000 ? 'just now' : `${formatRemaining(ms)} ago`;
}

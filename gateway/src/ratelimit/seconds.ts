/** Milliseconds as whole seconds, rounded up so a client that waits that long is never early. */
export function toSeconds(ms: number): number {
  return ms <= 0 ? 0 : Math.ceil(ms / 1000);
}

/** One admitted request as a client saw it: when it was sent and when its answer came. */
export interface Admission {
  sentAt: number;
  answeredAt: number;
}

/**
 * The most admissions that certainly fell inside one window of `windowMs`: the gateway
 * admitted each request at some moment between its sending and its answer, so admissions
 * i..j certainly share a window when the last answer came less than `windowMs` after the
 * first was sent. A real excess by more than the spread of latencies cannot hide; a
 * latency spike cannot fake one.
 */
export function certainMaxInWindow(admissions: Admission[], windowMs: number): number {
  const sorted = [...admissions].sort((a, b) => a.sentAt - b.sentAt);
  let best = 0;
  for (const first of sorted) {
    const inside = sorted.filter(
      (a) => a.sentAt >= first.sentAt && a.answeredAt < first.sentAt + windowMs,
    ).length;
    best = Math.max(best, inside);
  }
  return best;
}

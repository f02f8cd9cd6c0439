// What one fault did to the promises of RELIABILITY.md, from the traffic log, the receiver
// and the database: the row of the table and what the suite asserts.
import type { TrafficLog } from './traffic';
import type { AnyWorld as World, FaultBrand } from './world';

export interface FaultResult {
  fault: string;
  requests: number;
  /** HTTP 5xx answers other than a 503 with Retry-After. */
  bad5xx: number;
  /** 503 service_unavailable answers with Retry-After: a dependency was down, say so and retry. */
  unavailable: number;
  /** Requests that got no answer at all (the gateway itself was down: connection refused). */
  unanswered: number;
  /** 2xx plan preparations missing from the database, or replayed with another plan id. */
  lostPlans: number;
  /** Accepted business changes whose event never reached the receiver. */
  lostEvents: number;
  /** Deliveries of an event the receiver already had (same event id: at-least-once). */
  duplicates: number;
  /** Deliveries of an event id that no attempted change could have produced. */
  strangers: number;
  /** Deliveries whose signature or headers the receiver refused. */
  unverified: number;
  /** The most 2xx answers the probe brand got in any 60 s window, and its budget. */
  probeMaxPerWindow: number;
  probeBudget: number;
  /** Seconds from the end of the fault to REST answering and a new event delivered. */
  recoverySeconds: number;
}

/** Plus: 60 a minute (docs/contract.md#limits). */
const PLUS_BUDGET = 60;
const WINDOW_MS = 60_000;
/**
 * Client-side times differ from Redis's admission times by the request's latency: windows are
 * measured 1 s shorter so that jitter cannot turn an exact limit into a false alarm.
 */
const CLOCK_TOLERANCE_MS = 1_000;

/** The largest number of admissions in any window [t, t + 59 s]. */
export function maxPerWindow(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! > WINDOW_MS - CLOCK_TOLERANCE_MS) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

export async function judge(opts: {
  fault: string;
  world: World;
  log: TrafficLog;
  main: FaultBrand;
  healedAt: number;
}): Promise<FaultResult> {
  const { world, log, healedAt } = opts;
  const ok = (s: number) => s >= 200 && s < 300;

  const bad5xx = log.http.filter(
    (r) => r.status >= 500 && !(r.status === 503 && r.retryAfter),
  ).length;

  const unavailable = log.http.filter((r) => r.status === 503 && r.retryAfter).length;
  const unanswered = log.http.filter((r) => r.status === 0).length;

  const ids = log.plans.map((p) => p.planId);
  const { rows } = await world.pool.query<{ id: string; request_id: string }>(
    `select id, request_id from plans.plans where brand_id = $1 and id = any($2::text[])`,
    [opts.main.id, ids],
  );
  const stored = new Map(rows.map((r) => [r.id, r.request_id]));
  const lostPlans =
    log.plans.filter((p) => stored.get(p.planId) !== p.requestId).length +
    log.planMismatches.length;

  const accepted = new Set(log.changes.map((c) => c.eventId));
  const lostEvents = [...accepted].filter((id) => !world.deliveredAt.has(id)).length;
  const mine = world.receiver.received.filter((d) => d.event?.brand_id === opts.main.id);
  const duplicates = mine.filter((d) => d.outcome === 'duplicate').length;
  const strangers = mine.filter(
    (d) =>
      d.event &&
      !accepted.has(d.event.id) &&
      !log.attemptedSubmissions.has(String((d.event.data.object as { id?: unknown }).id)),
  ).length;
  const unverified = world.receiver.received.filter((d) => !d.verdict.ok).length;

  const probeTimes = log.http.filter((r) => r.kind === 'probe' && ok(r.status)).map((r) => r.at);

  const firstAnswer = log.http.find(
    (r) => r.kind !== 'probe' && r.at >= healedAt && ok(r.status),
  )?.at;
  const firstDelivery = Math.min(
    ...log.changes
      .filter((c) => c.at >= healedAt)
      .map((c) => world.deliveredAt.get(c.eventId) ?? Number.POSITIVE_INFINITY),
  );
  const recoveryMs = Math.max(firstAnswer ?? Number.POSITIVE_INFINITY, firstDelivery) - healedAt;

  return {
    fault: opts.fault,
    requests: log.http.length,
    bad5xx,
    unavailable,
    unanswered,
    lostPlans,
    lostEvents,
    duplicates,
    strangers,
    unverified,
    probeMaxPerWindow: maxPerWindow(probeTimes),
    probeBudget: PLUS_BUDGET,
    recoverySeconds: Math.round(recoveryMs / 100) / 10,
  };
}

import type { Pool } from '@brand/shared/db';
import { Counter, Gauge, Histogram, type Registry } from '@brand/shared/metrics';
import { selectPendingDepth } from './claimRepo';
import type { Lane } from './deliveryLanes';
import type { Verdict } from '../outcome/recordOutcome';

/**
 * What became of one attempt, a bounded label: delivered (2xx), retry_scheduled, failed
 * (no attempt left, or a Test delivery's one attempt), gone (410: the receiver is
 * disabled), receiver_disabled (no 2xx for RECEIVER_DISABLE_AFTER_MS).
 */
export type AttemptOutcome =
  'delivered' | 'retry_scheduled' | 'failed' | 'gone' | 'receiver_disabled';

export function attemptOutcome(verdict: Verdict, status: number | undefined): AttemptOutcome {
  switch (verdict) {
    case 'succeeded':
      return 'delivered';
    case 'retry':
      return 'retry_scheduled';
    case 'failed':
      return 'failed';
    case 'receiver_disabled':
      return status === 410 ? 'gone' : 'receiver_disabled';
  }
}

/** What the worker reports after recording each attempt. */
export interface DeliveryObserver {
  attempted(a: {
    outcome: AttemptOutcome;
    seconds: number;
    /** The event's created_at, for a business event's first 2xx (not for Test deliveries). */
    deliveredEventCreatedAt?: string;
  }): void;
  /**
   * Deliveries a claim took: by primary key from the consumer's feed, or found by a scan of
   * the table (worker.ts).
   */
  claimed(way: ClaimWay, count: number): void;
}

type ClaimWay = 'feed' | 'scan';

/**
 * The delivery series on /metrics: attempts by outcome and their HTTP duration (this
 * process's worker), the time from a business event's creation to its 2xx, and the
 * pending deliveries of the whole service by state (read from the table at scrape time,
 * so every replica reports them; a scrape while the database is down keeps the last).
 */
export function deliveryMetrics(registry: Registry, pool: Pool): DeliveryObserver {
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Delivery attempts by outcome: delivered, retry_scheduled, failed, gone (410), receiver_disabled.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'webhook_delivery_attempt_duration_seconds',
    help: 'Duration of one delivery attempt (the HTTPS request to the receiver), by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'webhook_event_delivery_latency_seconds',
    help: 'Time from a business event being created to a receiver answering 2xx (retries included).',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14_400, 86_400, 259_200],
    registers: [registry],
  });
  new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Pending deliveries by state: due (to send now), in_flight (leased to a worker), retry_scheduled (waiting for their next attempt).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const depth = await selectPendingDepth(pool).catch(() => undefined);
      if (!depth) return;
      this.set({ state: 'due' }, depth.due);
      this.set({ state: 'in_flight' }, depth.in_flight);
      this.set({ state: 'retry_scheduled' }, depth.retry_scheduled);
    },
  });
  const claims = new Counter({
    name: 'webhook_deliveries_claimed_total',
    help: "Deliveries this process's worker claimed, by way: feed (by primary key, stored by this process's consumer) or scan (found in the table: retries, recoveries, other processes').",
    labelNames: ['way'] as const,
    registers: [registry],
  });
  return {
    claimed(way, count) {
      if (count > 0) claims.inc({ way }, count);
    },
    attempted(a) {
      attempts.inc({ outcome: a.outcome });
      duration.observe({ outcome: a.outcome }, a.seconds);
      if (a.deliveredEventCreatedAt !== undefined) {
        const since = (Date.now() - Date.parse(a.deliveredEventCreatedAt)) / 1000;
        latency.observe(Math.max(0, since));
      }
    },
  };
}

/**
 * This worker's attempts in flight by lane (deliveryLanes.ts): `shared` is the budget of
 * receivers that answer promptly (DELIVERY_CONCURRENCY), `slow` the lane of slow ones that
 * answer, `hanging` the lane of those that hang or time out (each DELIVERY_SLOW_LANE_CONCURRENCY).
 * A hanging lane near its bound means many receivers hang at once. Beside them, the
 * answered attempts whose outcomes are being written (DELIVERY_UNRECORDED_MAX): near its
 * bound, the database is what holds deliveries back.
 */
export function laneMetrics(
  registry: Registry,
  inFlight: () => Record<Lane, number>,
  unrecorded: () => number,
): void {
  new Gauge({
    name: 'webhook_worker_unrecorded_attempts',
    help: "This worker's answered delivery attempts whose outcomes are still being written (bounded by DELIVERY_UNRECORDED_MAX).",
    registers: [registry],
    collect() {
      this.set(unrecorded());
    },
  });
  new Gauge({
    name: 'webhook_worker_attempts_in_flight',
    help: "This worker's delivery attempts in flight by lane: shared (receivers answering promptly), slow (slow receivers that answer), hanging (hanging or timing out).",
    labelNames: ['lane'] as const,
    registers: [registry],
    collect() {
      const n = inFlight();
      this.set({ lane: 'shared' }, n.shared);
      this.set({ lane: 'slow' }, n.slow);
      this.set({ lane: 'hanging' }, n.hanging);
    },
  });
}

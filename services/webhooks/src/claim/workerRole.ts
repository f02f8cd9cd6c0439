import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import type { ShutdownStep } from '@brand/shared/shutdown';
import type { WebhooksConfig } from '../config';
import type { SecretBox } from '@brand/shared/secrets';
import type { DeliveryObserver } from './deliveryMetrics';
import { startSweeper } from '../maintenance/sweeper';
import type { FedDelivery } from './deliveryFeed';
import { hangAfterMs, type Lane } from './deliveryLanes';
import { Sender } from '../send/sender';
import { DeliveryWorker } from './worker';
import { startTrailRelay } from '../audit/trailRole';
import { startBatchOpener } from '../streams/batchOpener';

/** The worker role while it runs: feed it what the consumer stored, stop it on shutdown. */
export interface WorkerRole {
  /** Deliveries this process's consumer has just stored: claimed now, by primary key. */
  feedStored(deliveries: readonly FedDelivery[]): void;
  /** Audit entries were stored, or a stream changed: its streams' runs are opened now. */
  wakeStreams(): void;
  /** Attempts in flight by lane (deliveryLanes.ts). */
  inFlight(): Record<Lane, number>;
  /** Answered attempts whose outcomes are still being written. */
  unrecordedCount(): number;
  /** Finishes in-flight deliveries (unfinished leases expire and are retried), then closes the sender. */
  stop: ShutdownStep;
}

/**
 * Starts the worker role (WEBHOOKS_ROLES=worker): a DeliveryWorker that claims due
 * deliveries and sends them through a Sender bound to the egress policy, and the
 * maintenance sweep (scheduled secret switches that came due, retentions).
 */
export function startWorkerRole(
  config: WebhooksConfig,
  deps: {
    pool: Pool;
    log: Logger;
    box: SecretBox;
    observer: DeliveryObserver;
    extraCa: string | undefined;
  },
): WorkerRole {
  const sender = new Sender({
    allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS,
    connectTimeoutMs: config.DELIVERY_CONNECT_TIMEOUT_MS,
    totalTimeoutMs: config.DELIVERY_TIMEOUT_MS,
    extraCa: deps.extraCa,
    keptReceivers: config.DELIVERY_KEPT_RECEIVERS,
  });
  const worker = new DeliveryWorker(
    {
      pool: deps.pool,
      log: deps.log.child({ role: 'worker' }),
      sender,
      box: deps.box,
      observer: deps.observer,
    },
    {
      lanes: {
        shared: config.DELIVERY_CONCURRENCY,
        slow: config.DELIVERY_SLOW_LANE_CONCURRENCY,
        hanging: config.DELIVERY_SLOW_LANE_CONCURRENCY,
        perReceiver: config.DELIVERY_PER_RECEIVER_CONCURRENCY,
        slowAfterMs: config.DELIVERY_SLOW_AFTER_MS,
        hangAfterMs: hangAfterMs(config.DELIVERY_SLOW_AFTER_MS, config.DELIVERY_TIMEOUT_MS),
      },
      unrecordedMax: config.DELIVERY_UNRECORDED_MAX,
      leaseMs: config.DELIVERY_LEASE_MS,
      pollMs: config.DELIVERY_POLL_MS,
      feedMax: config.DELIVERY_FEED_MAX,
      auditBatchMax: config.AUDIT_STREAM_BATCH_MAX,
      scale: config.RETRY_TIME_SCALE,
      disableAfterMs: config.RECEIVER_DISABLE_AFTER_MS,
      failingAlert: {
        afterFailures: config.RECEIVER_FAILING_ALERT_AFTER_FAILURES,
        afterMs: config.RECEIVER_FAILING_ALERT_AFTER_MS,
      },
    },
  );
  worker.start();
  // Audit streams' runs (issue 63), and the webhooks service's own activity on its way to the
  // audit trail, which wakes the streams of the brands it stored entries for.
  const opener = startBatchOpener(
    {
      pool: deps.pool,
      log: deps.log.child({ role: 'streams' }),
      onQueued: (runs) => worker.queueRuns(runs),
    },
    { pollMs: config.AUDIT_RELAY_POLL_MS, batchMax: config.AUDIT_STREAM_BATCH_MAX },
  );
  const trail = startTrailRelay(config, {
    pool: deps.pool,
    log: deps.log.child({ role: 'trail' }),
    onStored: () => opener.wake(),
  });
  const sweeper = startSweeper(
    { pool: deps.pool, log: deps.log.child({ role: 'sweeper' }) },
    {
      intervalMs: config.MAINTENANCE_INTERVAL_MS,
      attemptDetailRetentionMs: config.ATTEMPT_DETAIL_RETENTION_MS,
      historyRetentionMs: config.DELIVERY_HISTORY_RETENTION_MS,
      batchSize: config.SWEEP_BATCH_SIZE,
    },
  );
  return {
    feedStored: (deliveries) => worker.feedStored(deliveries),
    wakeStreams: () => opener.wake(),
    inFlight: () => worker.inFlight(),
    unrecordedCount: () => worker.unrecordedCount(),
    stop: {
      name: 'finish in-flight deliveries (unfinished leases expire and are retried)',
      run: async () => {
        // Half the grace: the steps after this one (gRPC, pool, traces) need the rest.
        await sweeper.stop();
        await trail.run();
        await opener.stop();
        await worker.stop(Math.floor(config.SHUTDOWN_GRACE_MS / 2));
        await sender.close();
      },
    },
  };
}

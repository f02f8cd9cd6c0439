import type { Kafka } from 'kafkajs';
import { lazyKafkaClient } from '@brand/shared/kafka';
import { Counter, Gauge, type Registry } from '@brand/shared/metrics';

/** Why a message was not stored: a bounded set, so it can be a label. */
export type SkipReason =
  | 'undecodable'
  | 'unknown_type'
  | 'invalid_created_at'
  | 'invalid_envelope'
  | 'invalid_object_json'
  /** A message every check passed that PostgreSQL still refused (chunkStore's backstop). */
  | 'refused_by_database';

/** What the consumer reports after each committed chunk. */
export interface ConsumerObserver {
  chunkStored(outcome: { ingested: number; duplicates: number; skipped: SkipReason[] }): void;
}

/**
 * The consumer's counters on /metrics: events stored (new ids), and messages not stored by
 * reason (a duplicate id, or a message that cannot be an event).
 */
export function consumerMetrics(registry: Registry): ConsumerObserver {
  const ingested = new Counter({
    name: 'webhook_events_ingested_total',
    help: 'Business events consumed from Kafka and stored (new event ids).',
    registers: [registry],
  });
  const skipped = new Counter({
    name: 'webhook_events_skipped_total',
    help: 'Kafka messages not stored, by reason: duplicate (event id already stored) or unreadable.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  return {
    chunkStored(outcome) {
      if (outcome.ingested > 0) ingested.inc(outcome.ingested);
      if (outcome.duplicates > 0) skipped.inc({ reason: 'duplicate' }, outcome.duplicates);
      for (const reason of outcome.skipped) skipped.inc({ reason });
    },
  };
}

/** Bounds a scrape's wait for the broker: /metrics must answer even when Kafka does not. */
const LAG_TIMEOUT_MS = 3_000;

/**
 * Consumer lag per partition on /metrics: the partition's high watermark minus the
 * group's committed offset (its low watermark while nothing is committed), read from the
 * broker at scrape time with an admin client. Read from the broker rather than from the
 * consumer's own batches, so the lag keeps growing while the consumer is stuck, slow or
 * between rebalances. Every replica of the group reports the same values. A scrape the
 * broker does not answer in time keeps the last values.
 */
export function consumerLagMetrics(
  registry: Registry,
  opts: { kafka: Kafka; topic: string; groupId: string },
): { close(): Promise<void> } {
  let closed = false;
  const admin = lazyKafkaClient(() => opts.kafka.admin());
  /** A failed read drops the client: the next scrape connects afresh. */
  const dropAdmin = async (): Promise<undefined> => {
    await admin.drop();
    return undefined;
  };
  const readLag = async (): Promise<Map<number, number>> => {
    const a = await admin.get();
    const [ends, committed] = await Promise.all([
      a.fetchTopicOffsets(opts.topic),
      a.fetchOffsets({ groupId: opts.groupId, topics: [opts.topic] }),
    ]);
    const done = new Map(
      (committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]),
    );
    const lag = new Map<number, number>();
    for (const end of ends) {
      const at = done.get(end.partition);
      const from = at === undefined || at < 0n ? BigInt(end.low) : at;
      const behind = BigInt(end.high) - from;
      lag.set(end.partition, Number(behind > 0n ? behind : 0n));
    }
    return lag;
  };
  new Gauge({
    name: 'webhook_consumer_lag_messages',
    help: 'Business events on the topic not yet consumed by this group (high watermark minus committed offset), per partition.',
    labelNames: ['partition'] as const,
    registers: [registry],
    async collect() {
      if (closed) return;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), LAG_TIMEOUT_MS);
      });
      const lag = await Promise.race([readLag().catch(dropAdmin), timeout]);
      clearTimeout(timer);
      for (const [partition, behind] of lag ?? [])
        this.set({ partition: String(partition) }, behind);
    },
  });
  return {
    async close() {
      closed = true;
      await dropAdmin();
    },
  };
}

/**
 * webhook_kafka_reachable on /metrics: 1 while a broker accepts connections, 0 while none
 * does (the consumer cannot read events then; they wait in records' outbox and on the topic).
 */
export function kafkaReachableMetric(registry: Registry, reachable: () => boolean): void {
  new Gauge({
    name: 'webhook_kafka_reachable',
    help: 'Whether a Kafka broker accepts connections (1) or none does (0), probed every KAFKA_PROBE_INTERVAL_MS.',
    registers: [registry],
    collect() {
      this.set(reachable() ? 1 : 0);
    },
  });
}

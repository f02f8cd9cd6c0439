import { Counter, Gauge, type Registry } from 'prom-client';
import type { Pool } from '@brand/shared/db';
import { selectBacklog } from './outboxRepo';

/** What the relay reports as it goes. */
export interface RelayObserver {
  published(count: number): void;
  /** Events of a batch Kafka did not acknowledge; they stay in the outbox and are retried. */
  failed(count: number): void;
}

/**
 * The outbox series on /metrics: events published and failed publish attempts by this
 * process (counters), and the backlog of the whole outbox (gauges read from the table at
 * scrape time, so every replica reports it, relaying or not). A scrape while the database
 * is unreachable keeps the last backlog values rather than failing /metrics.
 */
export function outboxMetrics(registry: Registry, pool: Pool): RelayObserver {
  const published = new Counter({
    name: 'outbox_events_published_total',
    help: 'Business events this process published to Kafka (acknowledged and marked).',
    registers: [registry],
  });
  const failed = new Counter({
    name: 'outbox_publish_failures_total',
    help: 'Business events in batches Kafka did not acknowledge (each stays and is retried).',
    registers: [registry],
  });
  const backlog = () => selectBacklog(pool).catch(() => undefined);
  new Gauge({
    name: 'outbox_unpublished_events',
    help: 'Business events committed and not yet published.',
    registers: [registry],
    async collect() {
      const b = await backlog();
      if (b) this.set(b.count);
    },
  });
  new Gauge({
    name: 'outbox_oldest_unpublished_age_seconds',
    help: 'How long the oldest unpublished business event has waited (0 when none).',
    registers: [registry],
    async collect() {
      const b = await backlog();
      if (b) this.set(b.oldest_age_seconds);
    },
  });
  return {
    published: (count) => published.inc(count),
    failed: (count) => failed.inc(count),
  };
}

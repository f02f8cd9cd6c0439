import { Counter, Gauge, type Registry } from 'prom-client';
import { backlogGauges } from '@brand/shared/metrics';
import type { Pool } from '@brand/shared/db';
import { countSetAside, selectBacklog } from './outboxRepo';

/** What the relay reports as it goes. */
export interface RelayObserver {
  published(count: number): void;
  /** Events of a batch Kafka did not acknowledge; they stay in the outbox and are retried. */
  failed(count: number): void;
  /** An event the broker refuses on its own (too large), set aside so the ones behind it go on. */
  setAside(): void;
}

/**
 * The outbox series on /metrics: events published and failed publish attempts by this
 * process (counters), events this process set aside (counter), and the backlog of the whole
 * outbox and its set-aside events (gauges read from the table at scrape time, by every replica,
 * relaying or not).
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
  const setAside = new Counter({
    name: 'outbox_events_set_aside_total',
    help: 'Business events this process set aside: the broker refuses each on its own (larger than message.max.bytes).',
    registers: [registry],
  });
  new Gauge({
    name: 'outbox_set_aside_events',
    help: 'Business events set aside in the outbox (the broker refused each as too large): unpublished until an operator mends them and clears set_aside_at.',
    registers: [registry],
    async collect() {
      const n = await countSetAside(pool).catch(() => undefined);
      if (n !== undefined) this.set(n);
    },
  });
  backlogGauges(
    registry,
    {
      waiting: {
        name: 'outbox_unpublished_events',
        help: 'Business events committed and not yet published.',
      },
      oldestAge: {
        name: 'outbox_oldest_unpublished_age_seconds',
        help: 'How long the oldest unpublished business event has waited (0 when none).',
      },
    },
    async () => {
      const b = await selectBacklog(pool);
      return { waiting: b.count, oldestAgeSeconds: b.oldest_age_seconds };
    },
  );
  return {
    published: (count) => published.inc(count),
    failed: (count) => failed.inc(count),
    setAside: () => setAside.inc(),
  };
}

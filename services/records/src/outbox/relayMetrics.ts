import { Counter, type Registry } from 'prom-client';
import { backlogGauges } from '@brand/shared/metrics';
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
 * process (counters), and the backlog of the whole outbox (backlogGauges: read from the table
 * at scrape time, by every replica, relaying or not).
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
  };
}

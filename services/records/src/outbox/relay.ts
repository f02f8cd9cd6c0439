import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import { withTransaction, type Pool } from '@brand/shared/db';
import { lazyKafkaClient, type KafkaConnectionStatus } from '@brand/shared/kafka';
import type { Logger } from '@brand/shared/logger';
import { startPublishing } from './outboxMessages';
import { claimUnpublished, markPublished, recordPublishFailure } from './outboxRepo';
import type { RelayObserver } from './relayMetrics';
import { createSleeper } from './sleeper';

export interface RelayOptions {
  /** A pool of its own: a batch holds its connection while Kafka acknowledges. */
  pool: Pool;
  kafka: Kafka;
  log: Logger;
  topic: string;
  batchSize: number;
  /** How long to sleep when the outbox is empty and no wake() comes. */
  pollMs: number;
  /** Cap of the doubling backoff while publishing fails. */
  maxBackoffMs: number;
  /** Counts published and failed events (the /metrics series). */
  observer?: RelayObserver;
  /** Told of every connect and send, so readiness says why events wait (wrong password, CA). */
  status?: KafkaConnectionStatus;
}

export interface OutboxRelay {
  /** Ends the current idle wait at once (a change committed: NOTIFY "outbox"). */
  wake(): void;
  /**
   * Stops the loop: the in-flight batch may finish (publish and mark) for up to
   * `timeoutMs`, then the producer disconnects. A batch cut off is rolled back and its
   * rows are published later, by this replica's successor or another one.
   */
  stop(timeoutMs: number): Promise<void>;
}

const FIRST_BACKOFF_MS = 250;

/** The producer could not connect: no rows were claimed. */
class ConnectFailure extends Error {
  override readonly name = ConnectFailure.name;
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** A send that failed: the rows it carried, so their attempts can be recorded. */
class PublishFailure extends Error {
  override readonly name = PublishFailure.name;
  constructor(
    readonly ids: string[],
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/**
 * Starts the outbox relay loop: claim a batch of unpublished rows in order (skip locked,
 * so replicas share the work), send it with an idempotent producer (acks from all in-sync
 * replicas), and mark the rows published in the claiming transaction only after the broker
 * acknowledged. Delivery is at-least-once: a crash after the send and before the commit
 * publishes the batch again with the same event ids, which consumers dedupe. While Kafka
 * (or the database) is unreachable the loop backs off, doubling up to maxBackoffMs; rows
 * simply stay in the outbox, so nothing is lost. Never throws.
 */
export function startOutboxRelay(opts: RelayOptions): OutboxRelay {
  const log = opts.log.child({ component: 'outbox-relay', topic: opts.topic });
  const sleeper = createSleeper();
  let stopping = false;

  const producer = lazyKafkaClient(() =>
    opts.kafka.producer({
      // murmur2 on the key, as Java clients partition: a brand maps to the same partition
      // whichever client publishes (named explicitly, which also silences kafkajs's notice)
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: true,
      maxInFlightRequests: 1,
      // Bounded (kafkajs retries an idempotent send forever by default, and warns once per
      // producer that limiting it "may invalidate EoS"): a send must end so the batch's
      // transaction ends and shutdown can finish. We promise at-least-once, and event ids
      // make a resend harmless.
      retry: { retries: 5 },
    }),
  );
  /** A failed producer may hold stale sequence numbers: the next attempt gets a fresh one. */
  const dropProducer = (): Promise<void> => producer.drop();

  /**
   * Connected before any row is claimed, even with the outbox empty: a broker refusing the
   * credentials or the certificate shows in readiness at start, not at the first event, and
   * no transaction holds a connection while the producer connects.
   */
  const connectedProducer = async (): Promise<Producer> => {
    try {
      return await producer.get();
    } catch (err) {
      throw new ConnectFailure(err);
    }
  };

  const relayBatch = async (): Promise<number> => {
    const p = await connectedProducer();
    opts.status?.succeeded();
    return withTransaction(opts.pool, async (client) => {
      const rows = await claimUnpublished(client, opts.batchSize);
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r.id);
      const batch = startPublishing(rows, opts.topic);
      try {
        await p.send({ topic: opts.topic, acks: -1, messages: batch.messages });
        batch.end();
      } catch (err) {
        batch.end(err);
        throw new PublishFailure(ids, err);
      }
      await markPublished(client, ids);
      return rows.length;
    });
  };

  const loop = async (): Promise<void> => {
    let backoffMs = 0;
    while (!stopping) {
      let sent = 0;
      try {
        sent = await relayBatch();
        if (backoffMs > 0) log.info('outbox relay recovered');
        backoffMs = 0;
        if (sent > 0) {
          opts.observer?.published(sent);
          log.debug({ sent }, 'published outbox events');
        }
      } catch (err) {
        const firstFailure = backoffMs === 0;
        backoffMs = Math.min(backoffMs ? backoffMs * 2 : FIRST_BACKOFF_MS, opts.maxBackoffMs);
        if (err instanceof ConnectFailure || err instanceof PublishFailure)
          opts.status?.failed(err);
        // A producer that cannot connect fails the same way every retry: its first failure
        // is logged (and the status logs each change of reason), the retries only at debug.
        if (err instanceof ConnectFailure)
          log[firstFailure ? 'warn' : 'debug'](
            { err: err.message, retryInMs: backoffMs },
            'outbox relay cannot connect to Kafka; rows stay until published',
          );
        else
          log.warn({ err, retryInMs: backoffMs }, 'outbox relay failed; rows stay until published');
        if (err instanceof ConnectFailure) await dropProducer();
        if (err instanceof PublishFailure) {
          opts.observer?.failed(err.ids.length);
          await recordPublishFailure(opts.pool, err.ids, err.message).catch(() => undefined);
          await dropProducer();
        }
      }
      if (stopping) break;
      // A full batch means more may be waiting: go again without sleeping.
      if (backoffMs === 0 && sent === opts.batchSize) continue;
      await sleeper.sleep(backoffMs || opts.pollMs, { wakeable: backoffMs === 0 });
    }
  };

  const running = loop();
  log.info({ batchSize: opts.batchSize, pollMs: opts.pollMs }, 'outbox relay started');

  return {
    wake: () => sleeper.wake(),
    async stop(timeoutMs) {
      stopping = true;
      sleeper.cancel();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const outcome = await Promise.race([running, timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout')
        log.warn({ timeoutMs }, 'outbox batch still in flight; leaving it');
      await dropProducer();
      log.info('outbox relay stopped');
    },
  };
}

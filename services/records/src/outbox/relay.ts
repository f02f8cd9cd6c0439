import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { lazyKafkaClient, type KafkaConnectionStatus } from '@brand/shared/kafka';
import type { Logger } from '@brand/shared/logger';
import { startPublishing } from './outboxMessages';
import {
  claimUnpublished,
  markPublished,
  recordPublishFailure,
  setOutboxRowAside,
  type OutboxRow,
} from './outboxRepo';
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

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

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

/** Kafka's answers that a request's message or record batch is too large: the same every time. */
const TOO_LARGE = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/**
 * Whether the broker refused a send because a message, or a partition's record batch, is over
 * its size limit (message.max.bytes, or the topic's max.message.bytes). Walks the wrappers
 * (kafkajs's retrier keeps the error it gave up on as `cause` or `originalError`).
 */
function isTooLargeForBroker(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && TOO_LARGE.has(type)) return true;
    e = e.cause ?? (e as { originalError?: unknown }).originalError;
  }
  return false;
}

/**
 * Starts the outbox relay loop: claim a batch of unpublished rows in order (skip locked,
 * so replicas share the work), send it with an idempotent producer (acks from all in-sync
 * replicas), and mark the rows published in the claiming transaction only after the broker
 * acknowledged. Delivery is at-least-once: a crash after the send and before the commit
 * publishes the batch again with the same event ids, which consumers dedupe. While Kafka
 * (or the database) is unreachable the loop backs off, doubling up to maxBackoffMs; rows
 * simply stay in the outbox, so nothing is lost. A batch the broker refuses as too large
 * (kafkajs puts a partition's messages in one record batch, refused whole over
 * message.max.bytes) is sent again in halves, in order, until the parts fit; an event refused
 * on its own is set aside in the outbox (set_aside_at, with the broker's answer), logged at
 * error level and counted, and the events behind it go on. A refused request may have written
 * its other partitions' messages already: sent again in a part, they reach the topic twice, with
 * the same id and created_at, which consumers dedupe. Never throws.
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

  /**
   * Sends `rows` and marks them published, in the claiming transaction. A part the broker
   * refuses as too large goes again in halves, in order (a fresh producer each time: the refused
   * request leaves the idempotent producer's sequence numbers behind the broker's), down to the
   * one event, which is set aside. Returns how many were published. Any other failure throws a
   * PublishFailure of this part: the turn rolls back, the parts marked before it included.
   */
  const publish = async (client: PoolClient, rows: OutboxRow[]): Promise<number> => {
    const p = await connectedProducer();
    const ids = rows.map((r) => r.id);
    const batch = startPublishing(rows, opts.topic);
    try {
      await p.send({ topic: opts.topic, acks: -1, messages: batch.messages });
      batch.end();
    } catch (err) {
      batch.end(err);
      if (!isTooLargeForBroker(err)) throw new PublishFailure(ids, err);
      opts.observer?.failed(rows.length);
      await dropProducer();
      if (rows.length > 1) {
        const half = Math.ceil(rows.length / 2);
        log.warn(
          { err: errorMessage(err), events: rows.length },
          'Kafka refused an outbox batch as too large; sending it in halves',
        );
        return (
          (await publish(client, rows.slice(0, half))) + (await publish(client, rows.slice(half)))
        );
      }
      const row = rows[0]!;
      await setOutboxRowAside(client, row.id, errorMessage(err));
      opts.observer?.setAside();
      log.error(
        {
          err: errorMessage(err),
          outbox_id: row.id,
          brand_id: row.brand_id,
          type: row.type,
          payload_bytes: Buffer.byteLength(row.payload),
        },
        'Kafka refuses this event as too large; it stays in the outbox, set aside (set_aside_at), and the events behind it go on',
      );
      return 0;
    }
    await markPublished(client, ids);
    return rows.length;
  };

  /** One turn: the batch claimed, and how many of it were published (not set aside). */
  const relayBatch = async (): Promise<{ claimed: number; published: number }> => {
    await connectedProducer();
    opts.status?.succeeded();
    return withTransaction(opts.pool, async (client) => {
      const rows = await claimUnpublished(client, opts.batchSize);
      if (rows.length === 0) return { claimed: 0, published: 0 };
      return { claimed: rows.length, published: await publish(client, rows) };
    });
  };

  const loop = async (): Promise<void> => {
    let backoffMs = 0;
    while (!stopping) {
      let claimed = 0;
      try {
        const turn = await relayBatch();
        claimed = turn.claimed;
        const sent = turn.published;
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
      if (backoffMs === 0 && claimed === opts.batchSize) continue;
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

import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Kafka, KafkaMessage } from 'kafkajs';
import { withTransaction, type Pool } from '@brand/shared/db';
import { EVENT_TYPES } from '@brand/shared/enums';
import { newId } from '@brand/shared/ids';
import {
  createTopicWithLeaders,
  decodeBusinessEvent,
  type KafkaConnectionStatus,
} from '@brand/shared/kafka';
import type { Logger } from '@brand/shared/logger';
import { continueTraceFromHeaders, traceContextOfSpan } from '@brand/shared/telemetry';
import { canonicalObjectJson } from '../send/sign';
import type { ConsumerObserver, SkipReason } from './consumerMetrics';
import {
  insertDeliveries,
  insertEvents,
  type EventInput,
  type FeedVersion,
  type NewDelivery,
} from './eventRepo';
import { MemberSupervisor, type GroupMember } from './memberSupervisor';

export interface ConsumerOptions {
  kafka: Kafka;
  pool: Pool;
  log: Logger;
  topic: string;
  groupId: string;
  /** Create the topic when missing (the local stack, tests). */
  ensureTopic: boolean;
  partitions: number;
  /**
   * Called with a chunk's new deliveries once they are committed: the worker of this process
   * claims them by primary key (deliveryFeed.ts).
   */
  onIngested: (deliveries: readonly NewDelivery[]) => void;
  /**
   * Called with the feed versions a chunk advanced once it is committed, before its offset
   * is: publishes them for the gateway's 304 of the events feed (feedVersions.ts). Never
   * rejects.
   */
  onFeedAdvanced?: (versions: readonly FeedVersion[]) => Promise<void>;
  /** Consumer-group timing (issue 19): how soon a crashed member's partitions move on. */
  groupTiming: ConsumerGroupTiming;
  /**
   * Called when group members keep failing without joining (memberSupervisor.ts): the
   * process should exit.
   */
  onFatal: (err: unknown) => void;
  /** Counts events stored, duplicates and skipped messages (the /metrics series). */
  observer?: ConsumerObserver;
  /** Told when a member joins or fails, so readiness says why nothing is consumed. */
  status?: KafkaConnectionStatus;
}

/**
 * A member that stops heartbeating (SIGKILL, a lost network) keeps its partitions until its
 * session expires; a restarted process joins as a new member, and the group waits for the
 * old one (kafkajs's default session is 30 s: the first delivery after a SIGKILL came 25 s
 * late). A clean stop leaves the group at once (stop() disconnects), so only crashes wait.
 */
interface ConsumerGroupTiming {
  /** Without a heartbeat for this long a member is dead (brokers allow 6 s at the least). */
  sessionTimeoutMs: number;
  /** How often a member heartbeats: about a third of the session, or less. */
  heartbeatIntervalMs: number;
  /** How long a rebalance waits for live members to rejoin. */
  rebalanceTimeoutMs: number;
}

/** Messages stored per transaction (and per offset commit). */
const CHUNK = 200;

const tracer = trace.getTracer('webhooks.consumer');

/**
 * The event a message carries, or a reason to skip it: undecodable bytes, an unknown
 * event type (new types may be added; this service delivers only the four), a created_at
 * or object_json that is not what the envelope promises. Skipped messages are logged and
 * committed past: retrying cannot make them readable, and they must not block the partition.
 */
export function toEventInput(
  message: KafkaMessage,
): EventInput | { skip: string; reason: SkipReason } {
  const event = decodeBusinessEvent(message.value);
  if (!event) return { skip: 'undecodable BusinessEvent', reason: 'undecodable' };
  const type = EVENT_TYPES.fromProto(event.type);
  if (!type) return { skip: `unknown event type ${event.type}`, reason: 'unknown_type' };
  if (Number.isNaN(Date.parse(event.created_at)))
    return { skip: 'created_at is not a timestamp', reason: 'invalid_created_at' };
  let object: unknown;
  try {
    object = JSON.parse(event.object_json);
  } catch {
    return { skip: 'object_json is not JSON', reason: 'invalid_object_json' };
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    return { skip: 'object_json is not a JSON object', reason: 'invalid_object_json' };
  return {
    id: event.id,
    brandId: event.brand_id,
    type,
    createdAt: event.created_at,
    objectJson: canonicalObjectJson(object),
    test: false,
    producer: event.producer,
  };
}

/**
 * Consumes business events with manual offset commits: each chunk of a batch is stored in
 * ONE transaction of two statements (the events, deduplicated on their ids, then one
 * delivery per subscribed, enabled receiver of each one's brand), and only then is the offset
 * committed. A crash between
 * the two replays the chunk, which the unique keys make harmless (at-least-once, no
 * duplicates). A failed transaction throws, so kafkajs retries the batch from the last
 * committed offset. Each event has a CONSUMER span ("process <topic>") that continues the
 * trace its message's headers carry, open while its chunk is stored, and that span's context
 * is stored with the event for its deliveries. A member the group dropped (its batch outlived the session)
 * is replaced in this process (memberSupervisor.ts). Returns a stop function.
 */
export async function startConsumer(opts: ConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const log = opts.log.child({ role: 'consumer', topic: opts.topic });
  // Made by the first member that connects, so a broker that refuses us at boot is retried
  // with the member (memberSupervisor.ts) instead of failing the start.
  let topicReady = !opts.ensureTopic;
  const ensureTopic = async (): Promise<void> => {
    if (topicReady) return;
    await ensureTopicExists(opts, log);
    topicReady = true;
  };
  const supervisor = new MemberSupervisor(
    () => groupMember(opts, log, ensureTopic),
    log,
    opts.onFatal,
  );
  await supervisor.start();
  log.info({ group: opts.groupId }, 'consuming business events');
  return { stop: () => supervisor.stop() };
}

async function ensureTopicExists(opts: ConsumerOptions, log: Logger): Promise<void> {
  const admin = opts.kafka.admin();
  await admin.connect();
  try {
    const existing = await admin.listTopics();
    const created =
      !existing.includes(opts.topic) &&
      (await createTopicWithLeaders(admin, { topic: opts.topic, numPartitions: opts.partitions }));
    if (created) log.info({ partitions: opts.partitions }, 'created the business-events topic');
  } finally {
    await admin.disconnect();
  }
}

/** One kafkajs consumer of the group, for the supervisor to start, replace and stop. */
function groupMember(
  opts: ConsumerOptions,
  log: Logger,
  ensureTopic: () => Promise<void>,
): GroupMember {
  const consumer = opts.kafka.consumer({
    groupId: opts.groupId,
    maxWaitTimeInMs: 250,
    sessionTimeout: opts.groupTiming.sessionTimeoutMs,
    heartbeatInterval: opts.groupTiming.heartbeatIntervalMs,
    rebalanceTimeout: opts.groupTiming.rebalanceTimeoutMs,
  });
  return {
    stop: () => consumer.disconnect(),
    start: async (events) => {
      consumer.on(consumer.events.GROUP_JOIN, () => {
        opts.status?.succeeded();
        events.joined();
      });
      consumer.on(consumer.events.CRASH, (e) => {
        opts.status?.failed(e.payload.error);
        if (!e.payload.restart) events.failed(e.payload.error);
        else log.warn({ err: e.payload.error }, 'consumer crashed; kafkajs restarts it');
      });
      try {
        await ensureTopic();
        await consumer.connect();
      } catch (err) {
        opts.status?.failed(err);
        throw err;
      }
      await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          for (let i = 0; i < batch.messages.length; i += CHUNK) {
            if (!payload.isRunning() || payload.isStale()) return;
            const chunk = batch.messages.slice(i, i + CHUNK);
            // kafkajs heartbeats only when asked: a chunk whose transaction waits (a slow
            // or locked database) would otherwise outlive the session and be dropped
            const { deliveries: stored, feedVersions } = await whileHeartbeating(
              () => payload.heartbeat(),
              opts.groupTiming,
              () => storeChunk(opts, log, chunk, batch.partition),
            );
            if (feedVersions.length > 0) await opts.onFeedAdvanced?.(feedVersions);
            const last = chunk[chunk.length - 1]!;
            payload.resolveOffset(last.offset);
            await consumer.commitOffsets([
              {
                topic: batch.topic,
                partition: batch.partition,
                offset: (BigInt(last.offset) + 1n).toString(),
              },
            ]);
            await payload.heartbeat();
            if (stored.length > 0) opts.onIngested(stored);
          }
        },
      });
    },
  };
}

/**
 * Runs `work`, heartbeating every heartbeat interval until it settles. A heartbeat that fails
 * (a rebalance began) is left to the commit after the work, which kafkajs handles.
 */
async function whileHeartbeating<T>(
  heartbeat: () => Promise<void>,
  timing: ConsumerGroupTiming,
  work: () => Promise<T>,
): Promise<T> {
  const beat = setInterval(
    () => void heartbeat().catch(() => undefined),
    timing.heartbeatIntervalMs,
  );
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

/** What one chunk's transaction did, counted once it committed. */
interface ChunkOutcome {
  ingested: number;
  duplicates: number;
  skipped: SkipReason[];
  deliveries: number;
}

async function storeChunk(
  opts: ConsumerOptions,
  log: Logger,
  chunk: KafkaMessage[],
  partition: number,
): Promise<{ deliveries: NewDelivery[]; feedVersions: FeedVersion[] }> {
  const outcome: ChunkOutcome = { ingested: 0, duplicates: 0, skipped: [], deliveries: 0 };
  const events: Array<{ event: EventInput; message: KafkaMessage }> = [];
  /** The chunk's new deliveries, for the feed once committed. */
  let deliveries: NewDelivery[] = [];
  let feedVersions: FeedVersion[] = [];
  for (const message of chunk) {
    const input = toEventInput(message);
    if ('skip' in input) {
      log.warn({ partition, offset: message.offset, reason: input.skip }, 'skipped a message');
      outcome.skipped.push(input.reason);
    } else events.push({ event: input, message });
  }
  if (events.length > 0) {
    // one CONSUMER span per event ("process <topic>"), continuing its message's trace; the
    // event is stored in that span's context, so its delivery attempts continue it
    const spans = events.map(({ event, message }) =>
      tracer.startSpan(
        `process ${opts.topic}`,
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            'messaging.system': 'kafka',
            'messaging.operation.type': 'process',
            'messaging.operation.name': 'process',
            'messaging.destination.name': opts.topic,
            'messaging.destination.partition.id': String(partition),
            'messaging.consumer.group.name': opts.groupId,
            'messaging.kafka.offset': Number(message.offset),
            'messaging.message.id': event.id,
            'brand.event.type': event.type,
          },
        },
        continueTraceFromHeaders(message.headers),
      ),
    );
    try {
      // two statements a chunk, whatever its size: the events, then all their deliveries
      deliveries = await withTransaction(opts.pool, async (db) => {
        const inserted = await insertEvents(
          db,
          events.map(({ event }, i) => ({ ...event, ...traceContextOfSpan(spans[i]!) })),
        );
        const stored = inserted.receivers;
        feedVersions = inserted.feedVersions;
        const made: NewDelivery[] = [];
        const taken = new Set<string>();
        events.forEach(({ event }, i) => {
          const receivers = stored.get(event.id);
          // seen before (or twice in this chunk): its deliveries exist
          if (!receivers || taken.has(event.id)) {
            spans[i]!.setAttribute('brand.event.duplicate', true);
            outcome.duplicates++;
            return;
          }
          taken.add(event.id);
          outcome.ingested++;
          for (const receiverId of receivers)
            made.push({
              id: newId('delivery'),
              eventId: event.id,
              eventAt: event.createdAt,
              eventType: event.type,
              receiverId,
              brandId: event.brandId,
            });
        });
        outcome.deliveries = await insertDeliveries(db, made);
        return made;
      });
    } catch (err) {
      for (const span of spans) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      throw err;
    } finally {
      for (const span of spans) span.end();
    }
  }
  // counted after the commit: a chunk rolled back and replayed is counted once
  opts.observer?.chunkStored(outcome);
  return { deliveries, feedVersions };
}

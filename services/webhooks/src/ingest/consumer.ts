import type { Kafka } from 'kafkajs';
import type { Pool } from '@brand/shared/db';
import { createTopicWithLeaders, type KafkaConnectionStatus } from '@brand/shared/kafka';
import type { Logger } from '@brand/shared/logger';
import { GroupCommit } from '../db/groupCommit';
import {
  decodeChunk,
  endSpans,
  storeChunks,
  refusalBudget,
  storeSkippingRefused,
  type DecodedChunk,
  type StoredChunk,
} from './chunkStore';
import type { ConsumerObserver } from './consumerMetrics';
import type { FeedVersion, NewDelivery } from './eventRepo';
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
   * Called with new deliveries once they are committed: the worker of this process
   * claims them by primary key (deliveryFeed.ts).
   */
  onIngested: (deliveries: readonly NewDelivery[]) => void;
  /**
   * Called with the feed versions a transaction advanced once it is committed, before its
   * offsets are: publishes them for the gateway's 304 of the events feed (feedVersions.ts). Never
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

/** Messages of one partition's batch stored together at most (a chunk). */
const CHUNK = 200;

/** Chunks one transaction carries at most: 1,000 messages. */
const CHUNKS_PER_TRANSACTION = 5;

/**
 * Partitions whose batches a member handles at once (kafkajs's partitionsConsumedConcurrently;
 * more than the topic has is harmless). Their chunks share transactions (GroupCommit), so this
 * bounds what waits, not the database's work: one transaction per member is in flight.
 */
const PARTITIONS_AT_ONCE = 16;

/**
 * Consumes business events with manual offset commits: each chunk of a batch is stored in a
 * transaction of two statements (the events, deduplicated on their ids, then one delivery per
 * subscribed, enabled receiver of each one's brand: chunkStore.ts), and only then is the
 * offset committed. A crash between the two replays the chunk, which the unique keys make
 * harmless (at-least-once, no duplicates). A failed transaction throws, so kafkajs retries the
 * batch from the last committed offset.
 *
 * A member handles several partitions' batches at once, and the chunks that arrive while a
 * transaction is in flight share the next one (a group commit); each partition then commits
 * its own offset. Over
 * thousands of brands, whose events fall in every partition, each fetch held one small batch
 * per partition, stored and committed one after another: a busy receiver's events waited
 * behind the other partitions' round trips (S10's commit-to-2xx p99, issue 64). Each
 * partition's chunks are still stored in order, one after another.
 *
 * Each event has a CONSUMER span ("process <topic>") that continues the trace its message's
 * headers carry, open while its chunk is stored, and that span's context is stored with the
 * event for its deliveries. A member the group dropped (its batch outlived the session) is
 * replaced in this process (memberSupervisor.ts). Returns a stop function.
 */
export function startConsumer(opts: ConsumerOptions): { stop(): Promise<void> } {
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
  // Not awaited: while no broker answers, the first member's connects retry for seconds to a
  // minute (kafkajs), and the process must listen meanwhile, its /healthz alive and its /readyz
  // saying Kafka is unreachable. Kept from listening past its startup probe's budget, a pod is
  // restarted in a loop for as long as the outage lasts.
  void supervisor.start().then((started) => {
    if (started) log.info({ group: opts.groupId }, 'consuming business events');
  });
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
  // events the database refuses are skipped, up to a budget (chunkStore.ts)
  const refusals = refusalBudget();
  // the partitions' chunks of the same moment share one transaction
  const group = new GroupCommit<DecodedChunk, StoredChunk>(
    (chunks) => storeChunks(opts.pool, chunks, opts.observer),
    { maxBatch: CHUNKS_PER_TRANSACTION, sameTurn: true },
  );
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
        partitionsConsumedConcurrently: PARTITIONS_AT_ONCE,
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          const source = { topic: batch.topic, partition: batch.partition, groupId: opts.groupId };
          for (let i = 0; i < batch.messages.length; i += CHUNK) {
            if (!payload.isRunning() || payload.isStale()) return;
            const messages = batch.messages.slice(i, i + CHUNK);
            const chunk = decodeChunk(source, messages, log);
            // kafkajs heartbeats only when asked: a chunk whose transaction waits (a slow
            // or locked database) would otherwise outlive the session and be dropped
            const stored = await whileHeartbeating(
              () => payload.heartbeat(),
              opts.groupTiming,
              () =>
                storeSkippingRefused(
                  (c) => storeInGroup(group, c),
                  chunk,
                  log,
                  refusals,
                  opts.observer,
                ),
            );
            // committed: the worker may claim them by key now
            if (stored.deliveries.length > 0) opts.onIngested(stored.deliveries);
            if (stored.feedVersions.length > 0) await opts.onFeedAdvanced?.(stored.feedVersions);
            payload.resolveOffset(messages[messages.length - 1]!.offset);
            await consumer.commitOffsets([
              { topic: batch.topic, partition: batch.partition, offset: chunk.nextOffset },
            ]);
            await payload.heartbeat();
          }
        },
      });
    },
  };
}

/** Stores a chunk in the group's next transaction, and ends its spans with the outcome. */
async function storeInGroup(
  group: GroupCommit<DecodedChunk, StoredChunk>,
  chunk: DecodedChunk,
): Promise<StoredChunk> {
  try {
    const stored = await group.add(chunk);
    endSpans(chunk);
    return stored;
  } catch (err) {
    endSpans(chunk, err);
    throw err;
  }
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

import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin } from 'kafkajs';

/**
 * What a broker's metadata answers for a topic created a moment ago. In KRaft mode a broker
 * may answer UNKNOWN_TOPIC_OR_PARTITION right after CreateTopics returned (its metadata cache
 * has not caught up with the controller), and LEADER_NOT_AVAILABLE until each partition has
 * its leader. kafkajs' own `waitForLeaders` retries only the second, so a topic created on a
 * broker that had just started failed once in CI with the first.
 */
const SETTLING = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
]);

/** True for an error (or the error it wraps) that a settling topic's metadata answers. */
export function isSettlingTopicError(err: unknown): boolean {
  // kafkajs' retrier wraps what it gives up on (KafkaJSNumberOfRetriesExceeded,
  // KafkaJSNonRetriableError) with the broker's error as its cause.
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { type, cause } = e as { type?: unknown; cause?: unknown };
    if (typeof type === 'string' && SETTLING.has(type)) return true;
    e = cause;
  }
  return false;
}

export interface TopicLeadersOptions {
  /** How long the partitions may take to have leaders before this gives up. */
  timeoutMs?: number;
  /** The pause between two metadata requests. */
  pollMs?: number;
}

/**
 * Waits until every partition of `topic` has a leader, as metadata answers it, treating the
 * answers of a topic still settling (above) as "not yet". Any other error is thrown at once.
 */
export async function awaitTopicLeaders(
  admin: Admin,
  topic: string,
  { timeoutMs = 30_000, pollMs = 100 }: TopicLeadersOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no partitions yet';
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      const partitions = topics.find((t) => t.name === topic)?.partitions ?? [];
      const leaderless = partitions.filter((p) => p.leader < 0 || p.partitionErrorCode !== 0);
      if (partitions.length > 0 && leaderless.length === 0) return;
      last = `${leaderless.length} of ${partitions.length} partitions without a leader`;
    } catch (err) {
      if (!isSettlingTopicError(err)) throw err;
      last = (err as Error).message;
    }
    if (Date.now() >= deadline)
      throw new Error(`Kafka topic ${topic} has no leaders after ${timeoutMs} ms (${last})`);
    await sleep(pollMs);
  }
}

/**
 * Creates `topic` unless it exists and returns once its partitions have leaders, so a producer
 * or consumer may use it at once. Resolves true when this call created it.
 */
export async function createTopicWithLeaders(
  admin: Admin,
  topic: { topic: string; numPartitions: number; replicationFactor?: number },
  opts: TopicLeadersOptions = {},
): Promise<boolean> {
  const created = await admin.createTopics({ topics: [topic], waitForLeaders: false });
  await awaitTopicLeaders(admin, topic.topic, opts);
  return created;
}

import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { BusinessEvent } from '@brand/proto/events/v1';
import { createTopicWithLeaders, decodeBusinessEvent } from '@brand/shared/kafka';
import { waitFor } from '@brand/testkit';

/** The shared test broker (HOUSE_RULES: one broker for everyone; own topic per test). */
export const TEST_KAFKA_BROKERS = process.env.TEST_KAFKA_BROKERS ?? '127.0.0.1:9092';

/** One consumed message, as a consumer of the envelope sees it. */
interface ConsumedEvent {
  key: string | undefined;
  contentType: string | undefined;
  partition: number;
  /** undefined when the value did not decode (which would fail the envelope tests). */
  event: BusinessEvent | undefined;
}

export interface EventTopic {
  /** A fresh topic of this test file: `brand.business-events.v1.test.<random>`. */
  topic: string;
  /** Every message consumed so far, in per-partition order. */
  messages: ConsumedEvent[];
  /** Waits until at least `count` messages arrived; returns them all. */
  waitForCount(count: number, timeoutMs?: number): Promise<ConsumedEvent[]>;
  /** Stops the consumer and deletes the topic. */
  close(): Promise<void>;
}

/**
 * Creates a topic with `partitions` partitions on the test broker and a consumer (its own
 * group) reading it from the beginning, so a test sees exactly what the relay published.
 * The consumer keeps reconnecting through a broker restart (kafkajs retries).
 */
export async function createEventTopic(
  partitions = 3,
  brokers = TEST_KAFKA_BROKERS,
): Promise<EventTopic> {
  const kafka = new Kafka({
    clientId: 'records-events-test',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  });
  const suffix = randomBytes(6).toString('hex');
  const topic = `brand.business-events.v1.test.${suffix}`;
  const admin = kafka.admin();
  await admin.connect();
  await createTopicWithLeaders(admin, { topic, numPartitions: partitions, replicationFactor: 1 });
  const consumer = kafka.consumer({ groupId: `records-events-test-${suffix}` });
  const messages: ConsumedEvent[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: ({ partition, message }) => {
      const contentType = message.headers?.['content-type'];
      messages.push({
        key: message.key?.toString('utf8'),
        contentType: contentType === undefined ? undefined : String(contentType),
        partition,
        event: decodeBusinessEvent(message.value),
      });
      return Promise.resolve();
    },
  });
  return {
    topic,
    messages,
    waitForCount: (count, timeoutMs = 20_000) =>
      waitFor(() => (messages.length >= count ? [...messages] : undefined), {
        timeoutMs,
        intervalMs: 100,
        what: `${count} messages on ${topic}`,
      }),
    async close() {
      await consumer.disconnect().catch(() => undefined);
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    },
  };
}

/** A record as the event carries it: "resource" first, absent values as null. */
export function asEventObject(resource: string, record: object): Record<string, unknown> {
  return {
    resource,
    ...Object.fromEntries(Object.entries(record).map(([k, v]) => [k, (v as unknown) ?? null])),
  };
}

import { Kafka, logLevel, type Producer } from 'kafkajs';
import { BusinessEvent } from '@brand/proto/events/v1';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { newId } from '@brand/shared/ids';
import {
  BUSINESS_EVENT_CONTENT_TYPE,
  createTopicWithLeaders,
  encodeBusinessEvent,
} from '@brand/shared/kafka';
import { randomHex } from './random';

/** The shared test broker; KAFKA_BROKERS overrides. */
export function testKafkaBrokers(): string[] {
  return (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
}

/**
 * A topic name of this test file: the contract fixes the production name, and the webhooks
 * service reads BUSINESS_EVENTS_TOPIC, so each test consumes its own topic on the shared
 * broker (and its own consumer group, see uniqueConsumerGroup).
 */
export const uniqueTopic = (label = 'test'): string =>
  `brand.business-events.v1.${label}.${randomHex(6)}`;

export const uniqueConsumerGroup = (label = 'test'): string =>
  `brand-webhooks-${label}-${randomHex(6)}`;

/** A BusinessEvent as the records service publishes it, with overridable fields. */
export function makeBusinessEvent(opts: {
  brandId: string;
  type?: EventTypeName;
  id?: string;
  object?: Record<string, unknown>;
  createdAt?: string;
}): BusinessEvent {
  const type = opts.type ?? 'submission.approved';
  return BusinessEvent.fromPartial({
    id: opts.id ?? newId('event'),
    type: EVENT_TYPES.toProto(type),
    brand_id: opts.brandId,
    created_at: opts.createdAt ?? new Date().toISOString(),
    object_json: JSON.stringify(
      opts.object ?? { resource: 'submissions', id: newId('submission'), status: 'approved' },
    ),
    producer: 'test',
  });
}

/** A connected producer for one topic, following the envelope rules (key = brand id). */
export interface EventProducer {
  publish(events: BusinessEvent[]): Promise<void>;
  /** Publishes raw message values (e.g. undecodable bytes) keyed by `key`. */
  publishRaw(key: string, values: Buffer[]): Promise<void>;
  close(): Promise<void>;
}

export async function createEventProducer(
  topic: string,
  brokers: string[] = testKafkaBrokers(),
): Promise<EventProducer> {
  const kafka = new Kafka({
    clientId: `test-producer-${randomHex(3)}`,
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
  const producer: Producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  const headers = { 'content-type': BUSINESS_EVENT_CONTENT_TYPE };
  return {
    publish: async (events) => {
      for (let i = 0; i < events.length; i += 500) {
        await producer.send({
          topic,
          acks: -1,
          messages: events.slice(i, i + 500).map((e) => ({
            key: e.brand_id,
            value: encodeBusinessEvent(e),
            headers,
          })),
        });
      }
    },
    publishRaw: async (key, values) => {
      await producer.send({ topic, acks: -1, messages: values.map((value) => ({ key, value })) });
    },
    close: () => producer.disconnect(),
  };
}

/** Creates a topic on the broker (idempotent), so a consumer and producer agree on it. */
export async function createTopic(
  topic: string,
  partitions = 3,
  brokers: string[] = testKafkaBrokers(),
): Promise<void> {
  const admin = new Kafka({ clientId: 'test-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await createTopicWithLeaders(admin, { topic, numPartitions: partitions });
  } finally {
    await admin.disconnect();
  }
}

/** Deletes a test's topic (and so its data) from the broker; errors are ignored. */
export async function deleteTopic(
  topic: string,
  brokers: string[] = testKafkaBrokers(),
): Promise<void> {
  const admin = new Kafka({ clientId: 'test-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    await admin.deleteTopics({ topics: [topic], timeout: 5_000 });
  } catch {
    // a broker that is gone (a test's own, already removed) has nothing left to delete
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

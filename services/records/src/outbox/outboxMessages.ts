import { SpanKind, trace, type Span } from '@opentelemetry/api';
import type { Message } from 'kafkajs';
import { EVENT_TYPES } from '@brand/shared/enums';
import { BUSINESS_EVENT_CONTENT_TYPE, encodeBusinessEvent } from '@brand/shared/kafka';
import {
  continueTrace,
  failSpan,
  traceContextOfSpan,
  type StoredTraceContext,
} from '@brand/shared/telemetry';
import type { OutboxRow } from './outboxRepo';

/** BusinessEvent.producer of every event this relay publishes. */
const PRODUCER_NAME = 'records';

const tracer = trace.getTracer('records.outbox-relay');

/**
 * The Kafka message of one outbox row, exactly as proto/brand/events/v1/events.proto says,
 * with the W3C trace headers of `publishedIn` (the row's publish span) when traced.
 */
export function toKafkaMessage(row: OutboxRow, publishedIn?: StoredTraceContext): Message {
  const headers: Record<string, string> = { 'content-type': BUSINESS_EVENT_CONTENT_TYPE };
  if (publishedIn?.traceparent) headers.traceparent = publishedIn.traceparent;
  if (publishedIn?.tracestate) headers.tracestate = publishedIn.tracestate;
  return {
    key: row.brand_id,
    value: encodeBusinessEvent({
      id: row.id,
      type: EVENT_TYPES.toProto(row.type),
      brand_id: row.brand_id,
      created_at: row.created_at,
      object_json: row.payload,
      producer: PRODUCER_NAME,
    }),
    headers,
  };
}

/** A batch on its way to Kafka: its messages, and how to end their publish spans. */
export interface PublishingBatch {
  messages: Message[];
  /** Ends every publish span: successfully, or with the error the send failed with. */
  end(error?: unknown): void;
}

/**
 * The messages of a claimed batch, each with a PRODUCER span of its own ("send <topic>",
 * OpenTelemetry messaging conventions) whose parent is the context its row stored (the
 * business change's trace), and whose context goes in that message's headers: the
 * consumer continues each event's own trace, whatever else shares the batch. A row with no
 * stored context starts a new trace here. No-op spans and no trace headers while tracing
 * is off.
 */
export function startPublishing(rows: OutboxRow[], topic: string): PublishingBatch {
  const spans: Span[] = [];
  const messages = rows.map((row) => {
    const span = tracer.startSpan(
      `send ${topic}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.operation.name': 'send',
          'messaging.destination.name': topic,
          'messaging.message.id': row.id,
          'messaging.kafka.message.key': row.brand_id,
          'messaging.batch.message_count': rows.length,
          'brand.event.type': row.type,
        },
      },
      continueTrace(row),
    );
    spans.push(span);
    return toKafkaMessage(row, traceContextOfSpan(span));
  });
  return {
    messages,
    end(error) {
      for (const span of spans) {
        if (error !== undefined) failSpan(span, error);
        span.end();
      }
    },
  };
}

import type { KafkaMessage } from 'kafkajs';
import { EVENT_TYPES } from '@brand/shared/enums';
import { decodeBusinessEvent } from '@brand/shared/kafka';
import { canonicalObjectJson } from '../send/sign';
import type { SkipReason } from './consumerMetrics';
import type { EventInput } from './eventRepo';

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

import type { KafkaMessage } from 'kafkajs';
import { isRealInstant } from '@brand/shared/db';
import { EVENT_TYPES } from '@brand/shared/enums';
import { decodeBusinessEvent } from '@brand/shared/kafka';
import { isOneLine } from '@brand/shared/text';
import { canonicalObjectJson } from '../send/sign';
import type { SkipReason } from './consumerMetrics';
import type { EventInput } from './eventRepo';

/**
 * The event a message carries, or a reason to skip it: undecodable bytes, an unknown
 * event type (new types may be added; this service delivers only the four), a brand, producer,
 * created_at or object_json that is not what the envelope promises (a NUL, 30 February: values
 * PostgreSQL refuses, which replayed the chunk for ever and held the partition; a nest deeper
 * than any record's). Skipped messages
 * are logged and committed past: retrying cannot make them readable, and they must not block the
 * partition.
 */
export function toEventInput(
  message: KafkaMessage,
): EventInput | { skip: string; reason: SkipReason } {
  const event = decodeBusinessEvent(message.value);
  if (!event) return { skip: 'undecodable BusinessEvent', reason: 'undecodable' };
  const type = EVENT_TYPES.fromProto(event.type);
  if (!type) return { skip: `unknown event type ${event.type}`, reason: 'unknown_type' };
  if (!isRealInstant(event.created_at))
    return { skip: 'created_at is not a timestamp', reason: 'invalid_created_at' };
  if (!isOneLine(event.brand_id) || event.brand_id.length > 64)
    return { skip: 'brand_id is not a brand id', reason: 'invalid_envelope' };
  if (!isOneLine(event.producer) || event.producer.length > 64)
    return { skip: 'producer is not a service name', reason: 'invalid_envelope' };
  let object: unknown;
  try {
    object = JSON.parse(event.object_json);
  } catch {
    return { skip: 'object_json is not JSON', reason: 'invalid_object_json' };
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    return { skip: 'object_json is not a JSON object', reason: 'invalid_object_json' };
  // PostgreSQL's jsonb cannot hold a NUL, nor the record id's text; and no record nests deep
  const problem = shapeProblem(object);
  if (problem) return { skip: `object_json ${problem}`, reason: 'invalid_object_json' };
  if (!isRecordShaped(object))
    return {
      skip: 'object_json has no record id and resource',
      reason: 'invalid_object_json',
    };
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
 * Whether a parsed object names its record as every record does: a resource and an id.
 * Receivers deduplicate by the event's id (decodeBusinessEvent requires it) and the record's
 * (the contract): an object without one cannot be deduplicated, so it is not delivered (a
 * review, 2026-11-30: it was stored and delivered, signed, as it came).
 */
function isRecordShaped(object: object): boolean {
  const { id, resource } = object as { id?: unknown; resource?: unknown };
  return (
    typeof id === 'string' &&
    id.length > 0 &&
    id.length <= 64 &&
    isOneLine(id) &&
    typeof resource === 'string' &&
    resource.length > 0
  );
}

/** Objects and arrays within one another a record may have, itself counted (far past any record). */
const MAX_DEPTH = 32;

/**
 * What makes a parsed object unfit to store, or undefined: a NUL in any string, key or value,
 * or a nest deeper than MAX_DEPTH. Walked with a stack of its own, not by recursion: JSON.parse
 * reads a nest thousands deep, and a recursive walk of it overflowed the call stack, which
 * crashed the consumer on that message again after every rejoin (a hostile review, 2026-11-30).
 */
function shapeProblem(object: object): string | undefined {
  const stack: Array<[value: unknown, depth: number]> = [[object, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [value, depth] = next;
    if (typeof value === 'string') {
      if (value.includes('\0')) return 'holds a NUL character';
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_DEPTH) return `nests deeper than ${MAX_DEPTH} levels`;
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\0')) return 'holds a NUL character';
      stack.push([v, depth + 1]);
    }
  }
  return undefined;
}

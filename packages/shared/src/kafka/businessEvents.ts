import { BusinessEvent } from '@brand/proto/events/v1';

/** The topic of business events (proto/brand/events/v1/events.proto documents the rules). */
export const BUSINESS_EVENTS_TOPIC = 'brand.business-events.v1';

/** The content-type header every producer sets on a BusinessEvent message. */
export const BUSINESS_EVENT_CONTENT_TYPE =
  'application/x-protobuf;type=brand.events.v1.BusinessEvent';

/** The message value of an event: protobuf binary. */
export function encodeBusinessEvent(event: BusinessEvent): Buffer {
  return Buffer.from(BusinessEvent.encode(event).finish());
}

/**
 * Decodes a message value. Returns undefined for a value that is not a well-formed event
 * (undecodable bytes, no id or brand): the consumer logs and skips it, since retrying
 * cannot make it readable and it must not block the partition.
 */
export function decodeBusinessEvent(value: Buffer | null): BusinessEvent | undefined {
  if (value === null) return undefined;
  let event: BusinessEvent;
  try {
    event = BusinessEvent.decode(value);
  } catch {
    return undefined;
  }
  if (!/^evt_[A-Za-z0-9]{1,64}$/.test(event.id) || !event.brand_id) return undefined;
  return event;
}

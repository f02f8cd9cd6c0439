/** The four event types a delivery can carry (SPEC 6.1). */
export const EVENT_TYPES = [
  'submission.approved',
  'submission.rejected',
  'payout.paid',
  'campaign.settled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The record an event is about: its resource name, id and public state. */
export interface EventObject {
  resource: string;
  id: string;
  [field: string]: unknown;
}

/** The JSON body of a delivery. The same `id` travels every retry of the event. */
export interface DeliveryEvent {
  id: string;
  type: EventType;
  /** RFC 3339 with microseconds, e.g. 2026-11-22T10:00:00.123456Z. */
  created_at: string;
  /** true for a delivery queued by the Test action: sample data, no business change. */
  test: boolean;
  brand_id: string;
  data: { object: EventObject };
}

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** A body of the right shape whose `type` has not yet been checked against the four. */
export type ParsedEvent = Omit<DeliveryEvent, 'type'> & { type: string };

/**
 * Parses a body that has already passed signature verification. Returns undefined for
 * anything that is not the documented shape, so callers answer 400 instead of crashing on
 * `event.data.object.id` later. Unknown extra fields are kept: we may add fields.
 */
export function parseEvent(rawBody: string): ParsedEvent | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !isRecord(parsed.data) || !isRecord(parsed.data.object)) {
    return undefined;
  }
  const object = parsed.data.object;
  const wellFormed =
    isNonEmptyString(parsed.id) &&
    isNonEmptyString(parsed.type) &&
    isNonEmptyString(parsed.created_at) &&
    typeof parsed.test === 'boolean' &&
    isNonEmptyString(parsed.brand_id) &&
    isNonEmptyString(object.resource) &&
    isNonEmptyString(object.id);
  return wellFormed ? (parsed as unknown as ParsedEvent) : undefined;
}

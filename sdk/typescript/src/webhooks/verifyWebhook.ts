import { webhookDeduplicationKey, type WebhookDeduplication } from './deduplication.js';
import { readDeliveryHeaders } from './deliveryHeaders.js';
import { isWebhookEventType, type WebhookEvent, type WebhookEventType } from './eventTypes.js';
import { parseDelivery } from './parseEvent.js';
import { checkSignature, signingCheck, type SignedRequestOptions } from './signedRequest.js';
import { WebhookVerificationError } from './verificationError.js';

export { DEFAULT_TOLERANCE_SECONDS } from './signedRequest.js';

export interface VerifyWebhookOptions<
  T extends WebhookEventType = WebhookEventType,
> extends SignedRequestOptions {
  /**
   * The event types this receiver selected (rule 5); anything else is refused with
   * `unexpected_event_type`. Required: pass WEBHOOK_EVENT_TYPES for a receiver of all four.
   */
  eventTypes: readonly T[];
  /**
   * Where processed events are remembered (rule 6; `memoryDeduplication()` for one process,
   * your database in production). With it, an event already claimed there is refused with
   * `duplicate_event` (status 200: answer 2xx, process nothing), and a first one is claimed
   * before it is returned: if processing it fails, `release` its `deduplicationKey` so the
   * service's retry runs it again (the ready-made handlers do both).
   */
  deduplicate?: WebhookDeduplication;
}

/** A verified delivery: the event, and the attempt number and signing time from the headers. */
export interface VerifiedWebhook<T extends WebhookEventType = WebhookEventType> {
  event: WebhookEvent<T>;
  /** X-Service-Attempt (1, 2, ...): for logs only, never for deduplication. */
  attempt: number;
  /** X-Service-Timestamp, Unix seconds. */
  timestamp: number;
  /** The event id and record id it is deduplicated on (webhookDeduplicationKey). */
  deduplicationKey: string;
}

/**
 * The selected types, checked at run time like the secret: a JavaScript caller (or a list read
 * from configuration) may pass none, and accepting every type then would break rule 5 silently.
 */
function acceptedTypesOf(eventTypes: unknown): readonly string[] {
  if (!Array.isArray(eventTypes) || eventTypes.length === 0) {
    throw new WebhookVerificationError(
      'no_event_types',
      'eventTypes must list the event types this receiver selected (WEBHOOK_EVENT_TYPES for all four)',
    );
  }
  return eventTypes as readonly string[];
}

/**
 * Verifies one delivery by docs/contract.md#receiver-verification, in order: the four headers present and well formed; the
 * timestamp within `toleranceSeconds` of `now` either way; HMAC-SHA256 over
 * `<timestamp>.<raw body>` equal, in constant time, for one of the secrets; then, trusting the
 * body, its shape, its `type` equal to X-Service-Event, and that type among `eventTypes`;
 * last, with `deduplicate`, the claim of its event and record ids (rule 6). Returns the event
 * with the attempt, timestamp and deduplication key; throws WebhookVerificationError saying
 * which rule failed (its `status` is the HTTP status to answer; 200 for `duplicate_event`).
 * Without `deduplicate`, deduplicating (rule 6) stays with the caller.
 */
export async function verifyWebhookDelivery<T extends WebhookEventType = WebhookEventType>(
  options: VerifyWebhookOptions<T>,
): Promise<VerifiedWebhook<T>> {
  const check = signingCheck(options, 'verifyWebhook');
  const accepted = acceptedTypesOf(options.eventTypes);
  const headers = readDeliveryHeaders(options.headers);
  const timestamp = await checkSignature(check, headers);

  // Only now is the body trusted enough to parse.
  const event = parseDelivery(check.body);
  if (!event) throw new WebhookVerificationError('malformed_body', 'body is not a delivery event');
  // The header is not signed; the body is. A disagreement means the header was altered.
  if (event.type !== headers.event) {
    throw new WebhookVerificationError(
      'malformed_header',
      "x-service-event does not match the body's type",
    );
  }
  // A type added later is refused like an unselected one, never as malformed.
  if (!isWebhookEventType(event.type) || !accepted.includes(event.type)) {
    throw new WebhookVerificationError(
      'unexpected_event_type',
      `event type ${event.type} is not accepted here`,
    );
  }
  const verified = event as unknown as WebhookEvent<T>;
  const deduplicationKey = webhookDeduplicationKey(verified);
  if (options.deduplicate && !(await options.deduplicate.claim(deduplicationKey))) {
    throw new WebhookVerificationError(
      'duplicate_event',
      `event ${verified.id} (record ${verified.data.object.id}) was processed already`,
    );
  }
  return { event: verified, attempt: headers.attempt, timestamp, deduplicationKey };
}

/**
 * Verifies one delivery (see verifyWebhookDelivery) and returns its event:
 *
 * ```ts
 * const event = await verifyWebhook({
 *   rawBody, headers: req.headers, secret: process.env.WEBHOOK_SECRET!,
 *   eventTypes: ['payout.paid'], deduplicate,
 * });
 * ```
 */
export async function verifyWebhook<T extends WebhookEventType = WebhookEventType>(
  options: VerifyWebhookOptions<T>,
): Promise<WebhookEvent<T>> {
  return (await verifyWebhookDelivery(options)).event;
}

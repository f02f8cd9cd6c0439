import { readDeliveryHeaders } from './deliveryHeaders.js';
import {
  isWebhookEventType,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventType,
} from './eventTypes.js';
import type { WebhookHeaders } from './headerValue.js';
import { anySecretMatches, hexBytes, signedPayload } from './hmac.js';
import { parseDelivery } from './parseEvent.js';
import { rawBodyBytes, type WebhookRawBody } from './rawBody.js';
import { WebhookVerificationError } from './verificationError.js';

/** docs/contract.md#receiver-verification rule 4, #limits: five minutes either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifyWebhookOptions<T extends WebhookEventType = WebhookEventType> {
  /** The body exactly as received, before any JSON parsing. */
  rawBody: WebhookRawBody;
  /** The request's headers (Headers, Node's req.headers, or a plain object; any letter case). */
  headers: WebhookHeaders;
  /** The endpoint's signing secret (`whsec_...`), or several while rotating: any one may match. */
  secret: string | readonly string[];
  /** Accepted clock difference either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The event types this endpoint selected (default all four); anything else is refused. */
  eventTypes?: readonly T[];
  /** The clock to judge the timestamp by (default the current time). */
  now?: Date;
}

/** A verified delivery: the event, and the attempt number and signing time from the headers. */
export interface VerifiedWebhook<T extends WebhookEventType = WebhookEventType> {
  event: WebhookEvent<T>;
  /** X-Service-Attempt (1, 2, ...): for logs only, never for deduplication. */
  attempt: number;
  /** X-Service-Timestamp, Unix seconds. */
  timestamp: number;
}

/**
 * The secrets to try. Checked at run time, not only by the types: `process.env.X!` compiles
 * whatever the environment holds, so an unset variable arrives here as undefined, alone or in
 * a list. Every entry must be a non-empty string: a list with a hole is a misconfiguration
 * (a rotation's new secret unset would otherwise pass unnoticed on the old one alone).
 */
function secretsOf(secret: unknown): string[] {
  const list: unknown[] = Array.isArray(secret) ? secret : [secret];
  if (list.length === 0) {
    throw new WebhookVerificationError('no_secret', 'no signing secret is configured');
  }
  list.forEach((s, i) => {
    if (typeof s !== 'string' || s.length === 0) {
      const which = Array.isArray(secret) ? `secret[${i}]` : 'secret';
      const got = s === undefined ? 'undefined (is its environment variable set?)' : typeof s;
      throw new WebhookVerificationError(
        'no_secret',
        `${which} must be a non-empty string, got ${s === '' ? 'an empty string' : got}`,
      );
    }
  });
  return list as string[];
}

/**
 * Verifies one delivery by docs/contract.md#receiver-verification, in order: the four headers present and well formed; the
 * timestamp within `toleranceSeconds` of `now` either way; HMAC-SHA256 over
 * `<timestamp>.<raw body>` equal, in constant time, for one of the secrets; then, trusting the
 * body, its shape, its `type` equal to X-Service-Event, and that type among `eventTypes`.
 * Returns the event with the attempt and timestamp; throws WebhookVerificationError saying
 * which rule failed (its `status` is the HTTP status to answer). Deduplicating on the event id
 * (rule 6) stays with the caller.
 */
export async function verifyWebhookDelivery<T extends WebhookEventType = WebhookEventType>(
  options: VerifyWebhookOptions<T>,
): Promise<VerifiedWebhook<T>> {
  const body = rawBodyBytes(options.rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(Number.isFinite(tolerance) && tolerance >= 0)) {
    throw new TypeError('verifyWebhook: toleranceSeconds must be a number, 0 or more.');
  }
  const accepted: readonly string[] = options.eventTypes ?? WEBHOOK_EVENT_TYPES;
  const secrets = secretsOf(options.secret);
  const headers = readDeliveryHeaders(options.headers);

  const timestamp = Number(headers.timestamp);
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (nowSeconds - timestamp > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `timestamp is more than ${tolerance} s old`,
    );
  }
  if (timestamp - nowSeconds > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `timestamp is more than ${tolerance} s ahead`,
    );
  }

  const payload = signedPayload(headers.timestamp, body);
  if (!(await anySecretMatches(secrets, payload, hexBytes(headers.digestHex)))) {
    throw new WebhookVerificationError('signature_mismatch', 'signature does not match');
  }

  // Only now is the body trusted enough to parse.
  const event = parseDelivery(body);
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
  return { event: event as unknown as WebhookEvent<T>, attempt: headers.attempt, timestamp };
}

/**
 * Verifies one delivery (see verifyWebhookDelivery) and returns its event:
 *
 * ```ts
 * const event = await verifyWebhook({ rawBody, headers: req.headers, secret: process.env.WEBHOOK_SECRET! });
 * ```
 */
export async function verifyWebhook<T extends WebhookEventType = WebhookEventType>(
  options: VerifyWebhookOptions<T>,
): Promise<WebhookEvent<T>> {
  return (await verifyWebhookDelivery(options)).event;
}

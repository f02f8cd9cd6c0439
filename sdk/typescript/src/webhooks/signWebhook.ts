import { hmacSha256Hex, signedPayload } from './hmac.js';
import { rawBodyBytes, type WebhookRawBody } from './rawBody.js';

/**
 * Signs a body as the service does (docs/contract.md#delivery-request), for testing your own receiver: returns the
 * delivery headers to send with `rawBody`. A real receiver never needs this.
 */
export async function signWebhookForTest(options: {
  secret: string;
  rawBody: WebhookRawBody;
  eventType: string;
  /** Unix seconds; default now. */
  timestamp?: number;
  attempt?: number;
}): Promise<Record<string, string>> {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const digest = await hmacSha256Hex(
    options.secret,
    signedPayload(timestamp, rawBodyBytes(options.rawBody)),
  );
  return {
    'content-type': 'application/json',
    'x-service-event': options.eventType,
    'x-service-timestamp': timestamp,
    'x-service-signature': `sha256=${digest}`,
    'x-service-attempt': String(options.attempt ?? 1),
  };
}

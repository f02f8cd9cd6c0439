import { createHmac } from 'node:crypto';

/** The header names of a delivery (docs/contract.md#delivery-request), lower-cased as node presents them. */
export const HEADERS = {
  event: 'x-service-event',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
  attempt: 'x-service-attempt',
} as const;

/**
 * Hex HMAC-SHA256 of `<timestamp>.<raw body>` with the signing secret's UTF-8 bytes.
 * The body is hashed as bytes, exactly as received: re-serialising parsed JSON would
 * change whitespace or key order and break the signature.
 */
export function computeSignature(
  secret: string,
  timestamp: string,
  rawBody: Buffer | string,
): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

/** What `signDelivery` returns: the value of each signed header, ready to send. */
export interface SignedHeaders {
  'X-Service-Timestamp': string;
  'X-Service-Signature': string;
}

/**
 * Signs a body the way the service does, for tests and local tools (never needed by a
 * real receiver). `timestamp` is Unix seconds; it defaults to now.
 */
export function signDelivery(
  secret: string,
  body: Buffer | string,
  timestamp: number = Math.floor(Date.now() / 1000),
): SignedHeaders {
  const ts = String(timestamp);
  return {
    'X-Service-Timestamp': ts,
    'X-Service-Signature': `sha256=${computeSignature(secret, ts, body)}`,
  };
}

/** Every header of a delivery (docs/contract.md#delivery-request), signed: for tests that play the sender. */
export function deliveryHeaders(options: {
  secret: string;
  body: Buffer | string;
  type: string;
  attempt?: number;
  timestamp?: number;
}): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Service-Event': options.type,
    'X-Service-Attempt': String(options.attempt ?? 1),
    ...signDelivery(options.secret, options.body, options.timestamp),
  };
}

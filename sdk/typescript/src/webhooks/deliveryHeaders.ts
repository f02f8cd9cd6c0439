import { headerValues, type WebhookHeaders } from './headerValue.js';
import { WebhookVerificationError } from './verificationError.js';

/** The delivery headers of docs/contract.md#delivery-request, in lower case. */
export const WEBHOOK_HEADERS = {
  event: 'x-service-event',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
  attempt: 'x-service-attempt',
} as const;

/** Each header's exact format. Anything else (spaces, two values, another algorithm) is malformed. */
const FORMATS = {
  event: /^[a-z][a-z_]*\.[a-z_.]+$/,
  timestamp: /^\d{1,12}$/,
  signature: /^sha256=([0-9a-fA-F]{64})$/,
  attempt: /^[1-9]\d{0,5}$/,
} as const;

type Name = keyof typeof WEBHOOK_HEADERS;

/** The signing headers every signed request carries, webhook delivery or audit stream run. */
export interface SignedHeaderValues {
  timestamp: string;
  /** The hex digest, without `sha256=`. */
  digestHex: string;
  attempt: number;
}

export interface DeliveryHeaderValues extends SignedHeaderValues {
  event: string;
}

/**
 * The named headers, present and well formed, or a WebhookVerificationError: every missing
 * header is reported before any malformed one (the most basic problem first).
 */
function readHeaders<N extends Name>(
  headers: WebhookHeaders,
  names: readonly N[],
): Record<N, string> {
  const values = new Map(names.map((n) => [n, headerValues(headers, WEBHOOK_HEADERS[n])]));
  for (const name of names) {
    const found = values.get(name) ?? [];
    if (found.length === 0 || found.every((v) => v === '')) {
      throw new WebhookVerificationError('missing_header', `${WEBHOOK_HEADERS[name]} is missing`);
    }
  }
  const read = {} as Record<N, string>;
  for (const name of names) {
    const found = values.get(name) ?? [];
    const value = found[0];
    if (found.length !== 1 || value === undefined || !FORMATS[name].test(value)) {
      throw new WebhookVerificationError(
        'malformed_header',
        `${WEBHOOK_HEADERS[name]} is malformed`,
      );
    }
    read[name] = value;
  }
  return read;
}

function signedValues(
  read: Record<'timestamp' | 'signature' | 'attempt', string>,
): SignedHeaderValues {
  return {
    timestamp: read.timestamp,
    digestHex: read.signature.slice('sha256='.length),
    attempt: Number(read.attempt),
  };
}

/** A webhook delivery's four headers (docs/contract.md#delivery-request). */
export function readDeliveryHeaders(headers: WebhookHeaders): DeliveryHeaderValues {
  const read = readHeaders(headers, ['event', 'timestamp', 'signature', 'attempt']);
  return { event: read.event, ...signedValues(read) };
}

/**
 * An audit stream run's three headers (docs/console.md#audit-streams): the signing headers and
 * no X-Service-Event. A request that carries one is a webhook delivery sent to the stream's
 * endpoint (the wrong URL configured), refused here by name rather than later as a signature
 * mismatch (another secret signed it) or an unreadable body (one event, not lines of entries).
 */
export function readAuditStreamHeaders(headers: WebhookHeaders): SignedHeaderValues {
  const read = readHeaders(headers, ['timestamp', 'signature', 'attempt']);
  if (headerValues(headers, WEBHOOK_HEADERS.event).some((v) => v !== '')) {
    throw new WebhookVerificationError(
      'malformed_header',
      `${WEBHOOK_HEADERS.event} is present: this is a webhook delivery, not an audit stream's (verify it with verifyWebhook)`,
    );
  }
  return signedValues(read);
}

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

export interface DeliveryHeaderValues {
  event: string;
  timestamp: string;
  /** The hex digest, without `sha256=`. */
  digestHex: string;
  attempt: number;
}

/**
 * The four delivery headers, present and well formed, or a WebhookVerificationError: every
 * missing header is reported before any malformed one (the most basic problem first).
 */
export function readDeliveryHeaders(headers: WebhookHeaders): DeliveryHeaderValues {
  const names = Object.keys(WEBHOOK_HEADERS) as Name[];
  const values = new Map(names.map((n) => [n, headerValues(headers, WEBHOOK_HEADERS[n])]));
  for (const name of names) {
    const found = values.get(name) ?? [];
    if (found.length === 0 || found.every((v) => v === '')) {
      throw new WebhookVerificationError('missing_header', `${WEBHOOK_HEADERS[name]} is missing`);
    }
  }
  const single = (name: Name): string => {
    const found = values.get(name) ?? [];
    const value = found[0];
    if (found.length !== 1 || value === undefined || !FORMATS[name].test(value)) {
      throw new WebhookVerificationError(
        'malformed_header',
        `${WEBHOOK_HEADERS[name]} is malformed`,
      );
    }
    return value;
  };
  const event = single('event');
  const timestamp = single('timestamp');
  const signature = single('signature');
  const attempt = single('attempt');
  return {
    event,
    timestamp,
    digestHex: signature.slice('sha256='.length),
    attempt: Number(attempt),
  };
}

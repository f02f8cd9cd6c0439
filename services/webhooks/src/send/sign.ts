import { createHmac } from 'node:crypto';
import type { EventTypeName } from '@brand/shared/enums';

/** The event as stored, from which every attempt's body is built. */
export interface EventForBody {
  id: string;
  type: EventTypeName;
  createdAt: string;
  test: boolean;
  brandId: string;
  /** The record as a JSON object text (BusinessEvent.object_json). */
  objectJson: string;
}

/**
 * The delivery body (docs/contract.md#delivery-body):
 * `{"id","type","created_at","test","brand_id","data":{"object":{...}}}`. Built the same
 * way on every attempt, so the bytes a receiver deduplicates on never change.
 *
 * Written out rather than parsed and stringified again: the object is stored as the consumer
 * wrote it, in JSON.stringify's own form (canonicalObjectJson below, ingest/consumer.ts), so splicing
 * it in gives exactly `JSON.stringify({id, type, created_at, test, brand_id, data: {object}})`
 * (sign.test.ts compares the two) without a parse and a stringify per event: the events feed
 * builds 50 to 200 of these a page, and the sender one per attempt.
 */
export function deliveryBody(e: EventForBody): string {
  return (
    `{"id":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},` +
    `"created_at":${JSON.stringify(e.createdAt)},"test":${e.test ? 'true' : 'false'},` +
    `"brand_id":${JSON.stringify(e.brandId)},"data":{"object":${e.objectJson}}}`
  );
}

/**
 * The record as stored with its event: JSON.stringify's form of the object, whatever spacing
 * or escapes its producer used. The consumer stores this (ingest/consumer.ts), so that
 * deliveryBody can splice the stored text in as is.
 */
export function canonicalObjectJson(object: object): string {
  return JSON.stringify(object);
}

/** `sha256=<hex HMAC-SHA256 over "<timestamp>.<raw body>">` (docs/contract.md#delivery-request, #receiver-verification). */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/**
 * The five headers of one attempt, signed now: every attempt gets a fresh timestamp and
 * signature, so a retry hours later still passes the receiver's 5-minute window.
 */
export function signedHeaders(opts: {
  secret: string;
  type: EventTypeName;
  body: string;
  attempt: number;
  now?: Date;
}): Record<string, string> {
  const timestamp = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  return {
    'content-type': 'application/json',
    'x-service-event': opts.type,
    'x-service-timestamp': String(timestamp),
    'x-service-signature': signature(opts.secret, timestamp, opts.body),
    'x-service-attempt': String(opts.attempt),
  };
}

/** How many hex digits of the signature the attempt detail keeps: enough to compare, not to reuse. */
const SIGNATURE_SHOWN_HEX = 8;

/**
 * The headers of an attempt as its detail keeps and shows them: the signature shortened to
 * "sha256=" and its first characters (a whole signature of a known body could be replayed
 * within the 5-minute window).
 */
export function headersAsShown(
  headers: Record<string, string>,
): Array<{ name: string; value: string }> {
  return Object.entries(headers).map(([name, value]) => ({
    name,
    value:
      name === 'x-service-signature'
        ? `${value.slice(0, 'sha256='.length + SIGNATURE_SHOWN_HEX)}…`
        : value,
  }));
}

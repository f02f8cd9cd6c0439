import { type AuditEntry, parseAuditEntries } from './auditEntries.js';
import { readAuditStreamHeaders } from './deliveryHeaders.js';
import { checkSignature, signingCheck, type SignedRequestOptions } from './signedRequest.js';

/**
 * What verifying an audit stream run takes: its raw body and headers, the stream's signing
 * secret (shown once when the stream was connected), and optionally the tolerance and the clock.
 */
export type VerifyAuditStreamOptions = SignedRequestOptions;

/** A verified run of an HTTPS audit stream: its entries in position order, and its headers' values. */
export interface VerifiedAuditStreamDelivery {
  /**
   * The run's entries, oldest first. At least once: a run sent again after a lost answer repeats
   * entries already received, so deduplicate on `id`. The Test action's entry has `test: true`
   * and position 0.
   */
  entries: AuditEntry[];
  /** X-Service-Attempt (1, 2, ...): for logs only. */
  attempt: number;
  /** X-Service-Timestamp, Unix seconds. */
  timestamp: number;
}

/**
 * Verifies one delivery of an HTTPS audit stream (docs/console.md#audit-streams), in order:
 * X-Service-Timestamp, X-Service-Signature and X-Service-Attempt present and well formed, and no
 * X-Service-Event (a stream never sends it: a request with one is a webhook delivery, to be
 * verified with verifyWebhook); the timestamp within `toleranceSeconds` of `now` either way;
 * HMAC-SHA256 over `<timestamp>.<raw body>` equal, in constant time, for one of the secrets;
 * then, trusting the body, each line one audit entry. The same checks and code as
 * verifyWebhookDelivery up to the signature; no event type, no selection, and no deduplication
 * store (deduplicate the entries on `id` where they are stored). Throws WebhookVerificationError
 * saying which check failed (its `status` is the HTTP status to answer).
 *
 * ```ts
 * const { entries } = await verifyAuditStreamDelivery({
 *   rawBody, headers: req.headers, secret: process.env.AUDIT_STREAM_SECRET!,
 * });
 * ```
 */
export async function verifyAuditStreamDelivery(
  options: VerifyAuditStreamOptions,
): Promise<VerifiedAuditStreamDelivery> {
  const check = signingCheck(options, 'verifyAuditStreamDelivery');
  const headers = readAuditStreamHeaders(options.headers);
  const timestamp = await checkSignature(check, headers);
  // Only now is the body trusted enough to parse.
  return { entries: parseAuditEntries(check.body), attempt: headers.attempt, timestamp };
}

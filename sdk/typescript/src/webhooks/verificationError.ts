/**
 * Which rule of docs/contract.md#receiver-verification a delivery broke (or, for an audit stream
 * run, which step of docs/console.md#verifying-an-https-stream), or which misuse stopped the check.
 */
export type WebhookVerificationReason =
  /** X-Service-Event, -Timestamp, -Signature or -Attempt is absent or empty (a stream's run: one of the last three). */
  | 'missing_header'
  /**
   * A header is not in its exact format, is sent twice, or X-Service-Event differs from the
   * body's type; on an audit stream run, X-Service-Event is there at all.
   */
  | 'malformed_header'
  /** X-Service-Timestamp is more than the tolerance (300 s) in the past: a replay or a stuck queue. */
  | 'timestamp_too_old'
  /** X-Service-Timestamp is more than the tolerance in the future: a clock far off, or a forgery. */
  | 'timestamp_in_future'
  /** No configured secret produces X-Service-Signature over `<timestamp>.<raw body>`. */
  | 'signature_mismatch'
  /** Authentic, but the event type is not one this endpoint accepts. */
  | 'unexpected_event_type'
  /**
   * Authentic, but the body is not a delivery event (not JSON, or missing fields); on an audit
   * stream run, not UTF-8 JSON lines, or a line that is not an audit entry.
   */
  | 'malformed_body'
  /** The body exceeds the size limit of the helper that read it. */
  | 'body_too_large'
  /** Not a delivery problem: rawBody was a parsed object or an already-read request, not the raw bytes. */
  | 'body_not_raw'
  /** Not a delivery problem: no signing secret was configured. */
  | 'no_secret'
  /** Not a delivery problem: no list of the event types this receiver selected (`eventTypes`). */
  | 'no_event_types'
  /**
   * Authentic and accepted, but processed already: the `deduplicate` store holds its event and
   * record ids. Answer 2xx (it is no failure), and do not process it again.
   */
  | 'duplicate_event'
  /**
   * Authentic and accepted, and a delivery of it is being handled right now (the `deduplicate`
   * store says so): answer 409, so the service tries again; it may still fail.
   */
  | 'event_in_progress';

/**
 * The HTTP status a receiver should answer for each reason: 400 for a request that is not a
 * well-formed delivery, 401 for one that is not authentic or not fresh, 413 for an oversized
 * body, 422 for an authentic event of a type not selected, 500 for the receiver's own
 * misconfiguration (the sender retries later, so no event is lost while it is fixed), 200
 * for a duplicate (processed already: the sender must stop retrying it), and 409 for one being
 * handled right now (it may still fail: the sender must try again).
 */
export const WEBHOOK_REFUSAL_STATUS: Readonly<Record<WebhookVerificationReason, number>> = {
  missing_header: 400,
  malformed_header: 400,
  timestamp_too_old: 401,
  timestamp_in_future: 401,
  signature_mismatch: 401,
  unexpected_event_type: 422,
  malformed_body: 400,
  body_too_large: 413,
  body_not_raw: 500,
  no_secret: 500,
  no_event_types: 500,
  duplicate_event: 200,
  event_in_progress: 409,
};

/** A delivery was refused. `reason` is a stable word to branch on and safe to log; so is `message`. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;
  /** The HTTP status to answer with (see WEBHOOK_REFUSAL_STATUS). */
  readonly status: number;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
    this.status = WEBHOOK_REFUSAL_STATUS[reason];
  }
}

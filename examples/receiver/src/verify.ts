import {
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhookDelivery,
  WebhookVerificationError,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from '@brand-records/client/webhooks';
import type { DeliveryEvent } from './event';

export { DEFAULT_TOLERANCE_SECONDS };

/** Why a delivery was refused: the package's reasons, stable words safe to log and branch on. */
export type RefusalReason = WebhookVerificationReason;

export type Verdict =
  | {
      ok: true;
      event: DeliveryEvent;
      attempt: number;
      timestamp: number;
      /**
       * Which of the configured secrets signed it (0 = the first). While rotating, list the new
       * secret first: once every delivery shows 0 the switch has happened, and the old secret
       * can go.
       */
      secretIndex: number;
    }
  | { ok: false; status: number; reason: RefusalReason; message: string };

/** Headers as node gives them (`req.headers`), a fetch Headers, or any plain object. */
export type HeaderBag = WebhookHeaders;

export interface VerifyOptions {
  /** The endpoint's signing secret, or several while rotating: any one may match. */
  secret: string | readonly string[];
  headers: HeaderBag;
  /** The body bytes exactly as received, before any JSON parsing. */
  rawBody: Uint8Array | string;
  /** The clock to judge the timestamp by; defaults to the current time. */
  now?: Date | undefined;
  /** Accepted clock difference in either direction (docs/contract.md#limits: five minutes). */
  toleranceSeconds?: number | undefined;
  /** The event types this endpoint selected; anything else is refused. */
  acceptedTypes: readonly string[];
}

/**
 * Verifies one delivery with `@brand-records/client/webhooks` (docs/contract.md#receiver-verification: headers present and
 * well formed, a timestamp within the window either way, the HMAC over `<timestamp>.<raw body>`
 * compared in constant time, the body's type equal to X-Service-Event and selected), and
 * turns the outcome into a verdict carrying the HTTP status to answer: 400 malformed, 401 not
 * authentic or stale, 422 authentic but not selected, 500 no secret configured.
 * Never rejects on bad input.
 */
export async function verifyDelivery(options: VerifyOptions): Promise<Verdict> {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  const verify = (secret: readonly string[]) =>
    verifyWebhookDelivery({
      secret,
      headers: options.headers,
      rawBody: options.rawBody,
      now: options.now,
      toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
      // Unknown words in the selection are simply never matched.
      eventTypes: options.acceptedTypes as Parameters<
        typeof verifyWebhookDelivery
      >[0]['eventTypes'],
    });
  try {
    // Every configured secret is tried by the package, in constant time each.
    const verified = await verify(secrets);
    return {
      ok: true,
      event: verified.event,
      attempt: verified.attempt,
      timestamp: verified.timestamp,
      secretIndex: secrets.length === 1 ? 0 : await whichSecret(secrets, verify),
    };
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    return { ok: false, status: error.status, reason: error.reason, message: error.message };
  }
}

/** The first secret that verifies alone: only asked during a rotation, for the log. */
async function whichSecret(
  secrets: readonly string[],
  verify: (secret: readonly string[]) => Promise<unknown>,
): Promise<number> {
  for (const [i, secret] of secrets.entries()) {
    if (
      await verify([secret]).then(
        () => true,
        () => false,
      )
    )
      return i;
  }
  return 0;
}

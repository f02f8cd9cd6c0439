import type { WebhookEvent, WebhookEventType } from './eventTypes.js';
import { WebhookVerificationError } from './verificationError.js';
import type { VerifiedWebhook, VerifyWebhookOptions } from './verifyWebhook.js';

/** Options shared by the ready-made handlers (express, Node http, fetch-style). */
export interface WebhookHandlerOptions<T extends WebhookEventType = WebhookEventType> extends Omit<
  VerifyWebhookOptions<T>,
  'rawBody' | 'headers' | 'now'
> {
  /**
   * Handles a verified event, once per event and record id when `deduplicate` is given (a
   * duplicate is answered 200 without calling it). Keep it fast (enqueue slow work; the service
   * waits 30 s). Throwing answers 500 and releases the event's claim, so the service's next
   * delivery of it runs it again. Without `deduplicate`, make it idempotent yourself: deduplicate
   * on `event.id` and `event.data.object.id`.
   */
  onEvent: (event: WebhookEvent<T>, context: { attempt: number; timestamp: number }) => unknown;
  /** Told about every refusal and every onEvent failure, e.g. to log them. */
  onError?: (error: unknown) => void;
  /** Largest body read (default 1 MiB). */
  maxBodyBytes?: number;
  /** The clock (tests). */
  now?: () => Date;
}

/** What a handler answers. */
export interface HandlerOutcome {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Runs verification and onEvent, and turns the result into the status and body to answer: a
 * duplicate is 200 without onEvent; a failing onEvent is 500 with the event's claim released.
 */
export async function respondTo<T extends WebhookEventType>(
  options: WebhookHandlerOptions<T>,
  verify: () => Promise<VerifiedWebhook<T>>,
): Promise<HandlerOutcome> {
  let verified: VerifiedWebhook<T>;
  try {
    verified = await verify();
  } catch (error) {
    if (error instanceof WebhookVerificationError && error.reason === 'duplicate_event') {
      return { status: 200, body: { received: true, duplicate: true } };
    }
    options.onError?.(error);
    if (error instanceof WebhookVerificationError) {
      return { status: error.status, body: { error: error.reason, message: error.message } };
    }
    return { status: 500, body: { error: 'internal_error' } };
  }
  try {
    await options.onEvent(verified.event, {
      attempt: verified.attempt,
      timestamp: verified.timestamp,
    });
  } catch (error) {
    options.onError?.(error);
    try {
      await options.deduplicate?.release(verified.deduplicationKey);
    } catch (releaseError) {
      options.onError?.(releaseError);
    }
    return { status: 500, body: { error: 'processing_failed' } };
  }
  return { status: 200, body: { received: true } };
}

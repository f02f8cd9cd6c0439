import type { WebhookEvent, WebhookEventType } from './eventTypes.js';
import { WebhookVerificationError } from './verificationError.js';
import type { VerifiedWebhook, VerifyWebhookOptions } from './verifyWebhook.js';

/** Options shared by the ready-made handlers (express, Node http, fetch-style). */
export interface WebhookHandlerOptions<T extends WebhookEventType = WebhookEventType> extends Omit<
  VerifyWebhookOptions<T>,
  'rawBody' | 'headers' | 'now'
> {
  /**
   * Handles a verified event. Keep it fast (enqueue slow work; the service waits 30 s) and
   * idempotent: deduplicate on `event.id` and `event.data.object.id`. Throwing answers 500,
   * so the service delivers the event again later.
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

/** Runs verification and onEvent, and turns the result into the status and body to answer. */
export async function respondTo<T extends WebhookEventType>(
  options: WebhookHandlerOptions<T>,
  verify: () => Promise<VerifiedWebhook<T>>,
): Promise<HandlerOutcome> {
  let verified: VerifiedWebhook<T>;
  try {
    verified = await verify();
  } catch (error) {
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
    return { status: 500, body: { error: 'processing_failed' } };
  }
  return { status: 200, body: { received: true } };
}

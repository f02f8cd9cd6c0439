import type { WebhookEvent, WebhookEventType } from './eventTypes.js';
import type { WebhookDeduplication } from './deduplication.js';
import { WEBHOOK_REFUSAL_STATUS, WebhookVerificationError } from './verificationError.js';
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

/** The keys of the events this process's handlers are running onEvent for, per store. */
const running = new WeakMap<WebhookDeduplication, Set<string>>();

/**
 * Runs verification and onEvent, and turns the result into the status and body to answer: a
 * duplicate is 200 without onEvent; a repeat while onEvent runs for it in this process is 409
 * (it may still fail: a 200 would stop the service's retries, and a failure then would lose
 * the event; a review of 2026-11-29 found that); a failing onEvent is 500 with the event's claim
 * released. `verify` claims through the deduplication it is given.
 */
export async function respondTo<T extends WebhookEventType>(
  options: WebhookHandlerOptions<T>,
  verify: (deduplicate: WebhookDeduplication | undefined) => Promise<VerifiedWebhook<T>>,
): Promise<HandlerOutcome> {
  const store = options.deduplicate;
  let keys: Set<string> | undefined;
  if (store) {
    keys = running.get(store) ?? new Set<string>();
    running.set(store, keys);
  }
  let repeatWhileRunning = false;
  const claiming: WebhookDeduplication | undefined =
    store && keys
      ? {
          claim: async (key) => {
            if (keys.has(key)) {
              repeatWhileRunning = true;
              return false;
            }
            // marked before the claim is awaited, so a repeat meanwhile sees it
            keys.add(key);
            try {
              const claimed = await store.claim(key);
              if (!claimed) keys.delete(key);
              return claimed;
            } catch (error) {
              keys.delete(key);
              throw error;
            }
          },
          release: (key) => store.release(key),
        }
      : undefined;
  let verified: VerifiedWebhook<T>;
  try {
    verified = await verify(claiming);
  } catch (error) {
    if (error instanceof WebhookVerificationError && error.reason === 'duplicate_event') {
      if (repeatWhileRunning) {
        return {
          status: WEBHOOK_REFUSAL_STATUS.event_in_progress,
          body: {
            error: 'event_in_progress',
            message: 'a delivery of this event is being handled now; try again',
          },
        };
      }
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
  } finally {
    keys?.delete(verified.deduplicationKey);
  }
  return { status: 200, body: { received: true } };
}

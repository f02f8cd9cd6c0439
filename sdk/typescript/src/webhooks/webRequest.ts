import type { WebhookEventType } from './eventTypes.js';
import { checkDeclaredLength, maxBodyBytesOf, readWebStream } from './rawBody.js';
import { respondTo, type WebhookHandlerOptions } from './handlerOutcome.js';
import { WebhookVerificationError } from './verificationError.js';
import {
  verifyWebhookDelivery,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
} from './verifyWebhook.js';

/** A fetch-style request: what edge runtimes, Deno, Bun, Next.js route handlers and Hono give. */
export interface WebRequestLike {
  headers: { get(name: string): string | null };
  body: {
    getReader(): { read(): Promise<{ done: boolean; value?: unknown }>; cancel(): Promise<void> };
  } | null;
  bodyUsed: boolean;
}

/**
 * Verifies a fetch-style `Request`, reading its body itself as raw bytes (up to
 * `maxBodyBytes`, default 1 MiB). The body must not have been read before: a request whose
 * body was already consumed (e.g. by `await request.json()`) is refused as body_not_raw.
 */
export async function verifyWebhookRequest<T extends WebhookEventType = WebhookEventType>(
  request: WebRequestLike,
  options: Omit<VerifyWebhookOptions<T>, 'rawBody' | 'headers'> & { maxBodyBytes?: number },
): Promise<VerifiedWebhook<T> & { rawBody: Uint8Array }> {
  const maxBytes = maxBodyBytesOf(options.maxBodyBytes, 'verifyWebhookRequest');
  if (request.bodyUsed) {
    throw new WebhookVerificationError(
      'body_not_raw',
      'the request body was already read; verify before parsing it (do not call request.json() first)',
    );
  }
  checkDeclaredLength(request.headers.get('content-length'), maxBytes);
  const rawBody = request.body ? await readWebStream(request.body, maxBytes) : new Uint8Array();
  const verified = await verifyWebhookDelivery({ ...options, rawBody, headers: request.headers });
  return { ...verified, rawBody };
}

/**
 * A handler for fetch-style servers (`(request) => Promise<Response>`): verifies, calls
 * `onEvent`, answers 200 once it returns, the refusal's status when verification fails
 * (`{"error": reason, "message"}`), and 500 when `onEvent` throws, so the service retries.
 *
 * ```ts
 * export const POST = webhookFetchHandler({ secret: process.env.WEBHOOK_SECRET!, onEvent: async (e) => queue.add(e) });
 * ```
 */
export function webhookFetchHandler<T extends WebhookEventType = WebhookEventType>(
  options: WebhookHandlerOptions<T>,
): (request: WebRequestLike) => Promise<Response> {
  // Checked once here: a bad limit would otherwise answer 500 to every delivery.
  maxBodyBytesOf(options.maxBodyBytes, 'webhookFetchHandler');
  return async (request) => {
    const outcome = await respondTo(options, (deduplicate) =>
      verifyWebhookRequest(request, { ...options, deduplicate, now: options.now?.() }),
    );
    return new Response(JSON.stringify(outcome.body), {
      status: outcome.status,
      headers: { 'content-type': 'application/json' },
    });
  };
}

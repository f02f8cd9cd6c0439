import { type IncomingMessage, type ServerResponse } from 'node:http';
import {
  type DedupeStore,
  type EventType,
  MemoryDedupeStore,
  baseUrl,
  closeServer,
  createBoundedServer,
  listen,
  processOnce,
} from '@brand/example-receiver';
import {
  verifyNodeWebhook,
  WebhookVerificationError,
  type VerifiedWebhook,
} from '@brand-records/client/webhooks';
import { toChatMessage } from './message';
import { type PostResult, postToChat } from './postToChat';

export interface RelayOptions {
  port?: number;
  host?: string;
  tls?: { key: string | Buffer; cert: string | Buffer } | undefined;
  secrets: readonly string[];
  acceptedTypes: readonly EventType[];
  /** The team-chat incoming-webhook URL. It is a credential: never logged. */
  targetUrl: string;
  /** Links in messages point under this, e.g. https://app.example.com. */
  dashboardBaseUrl: string;
  /** How long the outward post may take; keep it well under the sender's 30 s. */
  timeoutMs?: number;
  dedupe?: DedupeStore;
  /** One structured line per request (no bodies, no URLs, no secrets). */
  log?: (entry: Record<string, unknown>) => void;
  /** The clock for timestamp checks (tests). */
  now?: () => Date;
}

export interface RunningRelay {
  url: string;
  port: number;
  close(): Promise<void>;
}

type PostFailure = Extract<PostResult, { ok: false }>;

class PostFailed extends Error {
  override name = PostFailed.name;
  constructor(readonly result: PostFailure) {
    super('chat post failed');
  }
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * Starts the relay: verifies each delivery exactly as the example receiver does, posts a
 * short message for each new event, and answers 200 only once the chat accepted it. A
 * failed post answers 502, so the service retries later; refusals answer 400/401/422.
 */
export async function startRelay(options: RelayOptions): Promise<RunningRelay> {
  const dedupe = options.dedupe ?? new MemoryDedupeStore();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const log = options.log ?? (() => undefined);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      answer(res, 405, { error: 'method_not_allowed' });
      return;
    }
    let verified: VerifiedWebhook;
    try {
      // The client package reads the raw body (1 MiB at most) and verifies it (docs/contract.md#receiver-verification).
      verified = await verifyNodeWebhook(req, {
        secret: options.secrets,
        eventTypes: options.acceptedTypes,
        now: options.now?.(),
      });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      answer(res, error.status, { error: error.reason, message: error.message });
      log({ msg: 'delivery refused', status: error.status, reason: error.reason });
      return;
    }
    const { event, attempt } = verified;
    try {
      // Claimed before posting and released if the post fails: a retry of a delivery we
      // already relayed is not posted twice, a failed one is posted on the retry.
      const outcome = await processOnce(dedupe, event, async () => {
        const result = await postToChat(
          options.targetUrl,
          toChatMessage(event, options.dashboardBaseUrl),
          timeoutMs,
        );
        if (!result.ok) throw new PostFailed(result);
      });
      if (outcome === 'in_progress') {
        // The first copy is still being posted and may yet fail: not a 2xx, which would end
        // the service's retries (as the example receiver answers it).
        answer(res, 409, { error: 'event_in_progress' });
        log({ msg: 'event in progress', event_id: event.id, type: event.type, attempt });
        return;
      }
      answer(res, 200, { relayed: true, duplicate: outcome === 'duplicate' });
      log({
        msg: `event ${outcome === 'duplicate' ? 'duplicate' : 'relayed'}`,
        event_id: event.id,
        type: event.type,
        attempt,
      });
    } catch (error) {
      const failure = error instanceof PostFailed ? error.result : undefined;
      answer(res, 502, { error: 'relay_failed', reason: failure?.reason ?? 'internal' });
      log({
        msg: 'relay failed',
        event_id: event.id,
        attempt,
        reason: failure?.reason,
        chat_status: failure?.status,
      });
    }
  }

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch(() => answer(res, 500, { error: 'internal_error' }));
  };
  const server = createBoundedServer(listener, options.tls);
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);
  return {
    url: baseUrl(options.tls ? 'https' : 'http', host, port),
    port,
    close: () => closeServer(server),
  };
}

// The one signed POST both peers (W0 on graphile-worker, W1 on BullMQ) make per attempt, as the
// contract's delivery request says (docs/contract.md#delivery-request): the four headers, the
// signature `sha256=<hex HMAC-SHA256 over "<timestamp>.<raw body>">` with the subscription's
// secret, made again on every attempt; success is any 2xx within 30 s (5 s to connect);
// redirects are not followed (undici's request never follows them). Each peer's queue decides
// what a failure leads to (its retry schedule).
import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';

// keep-alive connections to every receiver, 5 s to connect (undici's defaults otherwise); the
// bench's throwaway CA is trusted through NODE_EXTRA_CA_CERTS, as in any node process
const agent = new Agent({ connect: { timeout: 5_000 } });

/** The contract's delays before attempts 2 to 10 (seconds); each peer jitters them by +-10 %. */
const RETRY_DELAYS_S = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400];
export const MAX_ATTEMPTS = 10;

/** Delay before attempt `attempt + 1` after attempt `attempt` failed, in ms, jittered +-10 %. */
export const retryDelayMs = (attempt) =>
  RETRY_DELAYS_S[attempt - 1] * 1000 * (0.9 + 0.2 * Math.random());

/**
 * POSTs `body` (the delivery body, exact text) to `subscription.url`, signed with its secret;
 * resolves to undefined on a 2xx, else to why the attempt failed.
 */
export async function signedPost(subscription, type, body, attempt) {
  const timestamp = Math.floor(Date.now() / 1000);
  const digest = createHmac('sha256', subscription.secret)
    .update(`${timestamp}.${body}`)
    .digest('hex');
  try {
    const res = await request(subscription.url, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'x-service-event': type,
        'x-service-timestamp': String(timestamp),
        'x-service-signature': `sha256=${digest}`,
        'x-service-attempt': String(attempt),
      },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    await res.body.dump();
    if (res.statusCode < 200 || res.statusCode > 299) return `${res.statusCode} from the receiver`;
    return undefined;
  } catch (err) {
    return err.message;
  }
}

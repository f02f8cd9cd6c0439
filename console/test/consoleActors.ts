import {
  createWebhooksClient,
  makePendingSubmissions,
  randomHex,
  startRegisteredReceiver,
  type RegisteredReceiver,
  type WebhooksClient,
} from '@brand/testkit';
import { ConsoleHttp, type Answer } from './browserlessClient';
import { startConsoleStack, type ConsoleStack } from './consoleStack';

/** A verified Plus brand with a fresh owner, as the console's tests start from. */
export function brandWithOwner(cs: ConsoleStack) {
  return cs.stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
}

/**
 * Signs `email` in on `http` (a browser that may carry a return path) through the form and the
 * mailed link; the link's answer, whose location is where the sign-in lands.
 */
export async function signInOn(
  cs: ConsoleStack,
  http: ConsoleHttp,
  email: string,
): Promise<Answer> {
  const since = Date.now() - 1_000;
  const asked = await http.post('/sign-in', { email });
  if (asked.status !== 200) throw new Error(`sign-in form answered ${asked.status}`);
  const link = await cs.latestLink(email, since);
  return http.post(new URL(link).pathname, {});
}

/** Signs `email` in over HTTP through the form and the mailed link, as a person would. */
export async function signInHttp(cs: ConsoleStack, email: string): Promise<ConsoleHttp> {
  const http = new ConsoleHttp(cs.url);
  const redeemed = await signInOn(cs, http, email);
  if (redeemed.status !== 303) throw new Error(`sign-in link answered ${redeemed.status}`);
  return http;
}

/**
 * A new brand's owner signs in on a browser that opened `/sign-in?next=<next>` first; the brand,
 * that browser, and the link's answer (where the sign-in landed).
 */
export async function signInAfterReturnPath(cs: ConsoleStack, next: string) {
  const { brand, owner } = await brandWithOwner(cs);
  const http = new ConsoleHttp(cs.url);
  const opened = await http.get(`/sign-in?next=${encodeURIComponent(next)}`);
  if (opened.status !== 200) throw new Error(`the sign-in page answered ${opened.status}`);
  return { brand, http, landed: await signInOn(cs, http, owner.email) };
}

/** The hidden fields of the form posting to `action` on a page, as a browser would send them. */
export function hiddenFields(page: string, action: string): Record<string, string> {
  const start = page.indexOf(`action="${action}"`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const input of form.matchAll(/<input type="hidden"[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1];
    if (name && value !== undefined) fields[name] = value;
  }
  return fields;
}

/** A console stack for receiver tests, with an admin webhooks client and verifying receivers. */
export interface ReceiverStack {
  cs: ConsoleStack;
  admin: WebhooksClient;
  /**
   * Starts a verifying HTTPS receiver (the example receiver, trusting the stack's test CA) and
   * registers it for the brand through the admin RPC.
   */
  receiverFor(
    brandId: string,
    opts?: Partial<Parameters<typeof startRegisteredReceiver>[0]>,
  ): Promise<RegisteredReceiver>;
  close(): Promise<void>;
}

/**
 * The console's service deadline in a file that queues its requests behind a held row lock
 * (with testkit's LOCK_QUEUE_SERVICE_ENV for the services): its first request waits on the lock
 * until the last has reached it, past the 5 s default on a loaded machine.
 */
export const LOCK_QUEUE_CONSOLE_ENV = { GRPC_DEADLINE_MS: '30000' } as const;

/**
 * The console stack with retries a hundred times faster than in production (5 s, 5 min,
 * 30 min become 50 ms, 3 s, 18 s), so a delivery waits long enough after its third failure to
 * be retried by hand, and none is in flight then.
 */
export async function startReceiverStack(
  consoleEnv: Record<string, string> = {},
  services: { recordsEnv?: Record<string, string>; webhooksEnv?: Record<string, string> } = {},
): Promise<ReceiverStack> {
  const cs = await startConsoleStack({
    recordsEnv: services.recordsEnv,
    webhooksEnv: { RETRY_TIME_SCALE: '0.01', ...services.webhooksEnv },
    consoleEnv,
  });
  const admin = createWebhooksClient(cs.stack.webhooks!.address);
  const started: RegisteredReceiver[] = [];
  return {
    cs,
    admin,
    async receiverFor(brandId, opts = {}) {
      const r = await startRegisteredReceiver({
        client: admin,
        ca: cs.ca,
        brandId,
        events: ['submission.approved', 'payout.paid'],
        label: 'Order system',
        ...opts,
      });
      started.push(r);
      return r;
    },
    async close() {
      for (const r of started) await r.server.close();
      admin.close();
      await cs.close();
    },
  };
}

/** Approves `n` new pending submissions of the brand (business events); their event ids. */
export async function approveSubmissions(
  cs: ConsoleStack,
  brandId: string,
  n = 1,
): Promise<string[]> {
  const ids: string[] = [];
  for (const s of await makePendingSubmissions(cs.stack.db.pool, brandId, n)) {
    ids.push((await cs.stack.admin.records('approveSubmission', { submission_id: s.id })).event_id);
  }
  return ids;
}

/**
 * Rejects `n` new pending submissions of the brand: events of a type the tests' receivers do
 * not select (submission.rejected), so no receiver gets them; their event ids.
 */
export async function rejectSubmissions(
  cs: ConsoleStack,
  brandId: string,
  n: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (const s of await makePendingSubmissions(cs.stack.db.pool, brandId, n)) {
    const rejected = await cs.stack.admin.records('rejectSubmission', {
      submission_id: s.id,
      reason: 'Off brief',
    });
    ids.push(rejected.event_id);
  }
  return ids;
}

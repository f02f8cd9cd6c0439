import type { Browser, Page } from 'playwright-core';
import { ListDeliveriesRequest, type Delivery } from '@brand/proto/webhooks/v1';
import { randomHex, waitFor, type RegisteredReceiver } from '@brand/testkit';
import {
  approveSubmissions,
  rejectSubmissions,
  startReceiverStack,
  type ReceiverStack,
} from '../consoleActors';
import type { ConsoleStack } from '../consoleStack';
import { LAPTOP, launchChromium, signIn } from './browserKit';

/** What the receivers' browser tests share: one stack with HTTPS receivers, and Chromium. */
export interface ReceiverPages {
  /** The console stack (its url, its admin client). */
  cs(): ConsoleStack;
  /**
   * A new Pro brand and its owner, signed in, on a laptop's screen (1280x900); a page that opens
   * a dialog fails the test.
   */
  ownerPage(): Promise<{ brandId: string; ownerEmail: string; page: Page }>;
  receiverFor: ReceiverStack['receiverFor'];
  /** Approves `n` of the brand's submissions: business changes, so events; their ids. */
  approve(brandId: string, n?: number): Promise<string[]>;
  /** Rejects `n` of the brand's submissions: events no receiver of these tests selects. */
  reject(brandId: string, n: number): Promise<string[]>;
  /** A receiver's newest deliveries as the webhooks service lists them (filters as given). */
  logOf(receiverId: string, q?: Partial<ListDeliveriesRequest>): Promise<Delivery[]>;
  /** Whether the receiver verified and processed the event's delivery. */
  verified(r: RegisteredReceiver, eventId: string): boolean;
  /** Waits until the receiver's delivery of each of `eventIds` has had `attempts` attempts. */
  awaitAttempts(
    receiverId: string,
    eventIds: string[],
    attempts: number,
    opts: { timeoutMs: number; what: string },
  ): Promise<void>;
}

/**
 * Starts the stack and the browser before a file's tests and stops them after: call it once at
 * the top of a test file. Each flow waits on real deliveries and their retries, so a test may
 * take minutes beside the other browser workers (240 s, as scripts/test.sh gives every browser test).
 */
export function receiverPages(): ReceiverPages {
  let rs: ReceiverStack | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    rs = await startReceiverStack();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await rs?.close();
  });
  jest.setTimeout(240_000);

  const stack = (): ReceiverStack => rs!;
  const logOf: ReceiverPages['logOf'] = async (receiverId, q = {}) =>
    (
      await stack().admin.call(
        'listDeliveries',
        ListDeliveriesRequest.fromPartial({ receiver_id: receiverId, limit: 10, ...q }),
      )
    ).deliveries;
  return {
    cs: () => stack().cs,
    async ownerPage() {
      const cs = stack().cs;
      const { brand, owner } = await cs.stack.admin.createBrand({
        name: 'Demo Brand',
        tier: 'pro',
        verified: true,
        ownerEmail: `owner-${randomHex(4)}@brand.test`,
      });
      const page = await signIn(browser!, cs, owner.email, { viewport: LAPTOP });
      page.on('dialog', (d) => {
        throw new Error(`a page opened a dialog: ${d.message()}`);
      });
      return { brandId: brand.id, ownerEmail: owner.email, page };
    },
    receiverFor: (brandId, opts) => stack().receiverFor(brandId, opts),
    approve: (brandId, n = 1) => approveSubmissions(stack().cs, brandId, n),
    reject: (brandId, n) => rejectSubmissions(stack().cs, brandId, n),
    logOf,
    verified: (r, eventId) =>
      r.server.received.some((d) => d.outcome === 'processed' && d.event?.id === eventId),
    async awaitAttempts(receiverId, eventIds, attempts, opts) {
      await waitFor(
        async () =>
          (await logOf(receiverId)).filter(
            (d) => eventIds.includes(d.event_id) && d.attempt_count >= attempts,
          ).length === eventIds.length,
        opts,
      );
    },
  };
}

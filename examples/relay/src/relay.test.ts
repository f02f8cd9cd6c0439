import * as http from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  type DeliveryEvent,
  deliveryHeaders,
  msUntilStalledRequestClosed,
  sampleEvent,
} from '@brand/example-receiver';
import { type RelayOptions, type RunningRelay, startRelay } from './relay';

const SECRET = 'whsec_5bN8mQ2wE7rT1yU4iO9pA3sD6fG0hJ';

/** A stand-in for a team-chat incoming webhook on 127.0.0.1 that records what it gets. */
interface FakeChat {
  url: string;
  posts: Array<{ contentType: string | undefined; body: unknown }>;
  /** What to answer next: a status, or 'hang'. */
  behaviour: number | 'hang';
  close(): Promise<void>;
}

async function startFakeChat(): Promise<FakeChat> {
  const chat: Omit<FakeChat, 'url' | 'close'> = { posts: [], behaviour: 200 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      chat.posts.push({
        contentType: req.headers['content-type'],
        body: JSON.parse(Buffer.concat(chunks).toString()) as unknown,
      });
      if (chat.behaviour !== 'hang') res.writeHead(chat.behaviour).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(chat, {
    url: `http://127.0.0.1:${port}/services/T0/B0/token`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

function deliver(
  relay: RunningRelay,
  event: DeliveryEvent = sampleEvent(),
  options: { attempt?: number; secret?: string; timestamp?: number } = {},
): Promise<Response> {
  const body = JSON.stringify(event);
  const headers = deliveryHeaders({
    secret: options.secret ?? SECRET,
    body,
    type: event.type,
    attempt: options.attempt ?? 1,
    timestamp: options.timestamp,
  });
  return fetch(relay.url, { method: 'POST', headers, body });
}

describe('startRelay', () => {
  let chat: FakeChat;
  let relay: RunningRelay;
  const logs: Array<Record<string, unknown>> = [];

  const start = async (options: Partial<RelayOptions> = {}): Promise<void> => {
    relay = await startRelay({
      secrets: [SECRET],
      acceptedTypes: ['submission.approved', 'payout.paid'],
      targetUrl: chat.url,
      dashboardBaseUrl: 'https://app.example.com',
      timeoutMs: 500,
      log: (entry) => logs.push(entry),
      ...options,
    });
  };

  beforeEach(async () => {
    logs.length = 0;
    chat = await startFakeChat();
  });
  afterEach(async () => {
    await relay.close();
    await chat.close();
  });

  it('posts {"text"} to the chat and answers 200 once the chat accepted it', async () => {
    await start();
    const res = await deliver(relay);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ relayed: true, duplicate: false });
    expect(chat.posts).toEqual([
      {
        contentType: 'application/json',
        body: {
          text: 'Submission approved (submission.approved): sub_4Tn8Qw2Er6Ty\nhttps://app.example.com/submissions/sub_4Tn8Qw2Er6Ty',
        },
      },
    ]);
  });

  it('posts nothing private: no creator handle, amount, payment record or secret', async () => {
    await start();
    const event = sampleEvent({
      type: 'payout.paid',
      object: {
        resource: 'payouts',
        id: 'pay_9',
        creator_handle: '@sam',
        amount: 4200,
        currency: 'EUR',
      },
    });
    expect((await deliver(relay, event)).status).toBe(200);
    const posted = JSON.stringify(chat.posts);
    for (const needle of ['@sam', '4200', 'EUR', SECRET, 'br_'])
      expect(posted).not.toContain(needle);
    expect(posted).toContain('https://app.example.com/payouts/pay_9');
  });

  it.each([500, 404, 302])(
    'answers 502 when the chat answers %i, then relays on the retry',
    async (status) => {
      await start();
      chat.behaviour = status;
      const failed = await deliver(relay, sampleEvent(), { attempt: 1 });
      expect(failed.status).toBe(502);
      expect(await failed.json()).toEqual({ error: 'relay_failed', reason: 'rejected' });
      chat.behaviour = 200;
      expect((await deliver(relay, sampleEvent(), { attempt: 2 })).status).toBe(200);
      expect(chat.posts).toHaveLength(2);
    },
  );

  it('answers 502 when the chat hangs past the timeout', async () => {
    await start({ timeoutMs: 200 });
    chat.behaviour = 'hang';
    const res = await deliver(relay);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: 'relay_failed', reason: 'timeout' });
  });

  it('answers 502 when the chat is unreachable', async () => {
    await start();
    await chat.close();
    const res = await deliver(relay);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: 'relay_failed', reason: 'unreachable' });
  });

  it('does not post a duplicate (same event, next attempt) twice', async () => {
    await start();
    expect((await deliver(relay, sampleEvent(), { attempt: 1 })).status).toBe(200);
    const second = await deliver(relay, sampleEvent(), { attempt: 2 });
    expect(await second.json()).toEqual({ relayed: true, duplicate: true });
    expect(chat.posts).toHaveLength(1);
  });

  // A review (2026-11-30): a repeat that came while the first copy was still being posted was
  // answered 200 relayed, which ends the service's retries though the post then failed.
  it('answers 409 to a repeat while the first copy is still being posted', async () => {
    await start({ timeoutMs: 300 });
    chat.behaviour = 'hang';
    const first = deliver(relay, sampleEvent(), { attempt: 1 });
    await new Promise((r) => setTimeout(r, 100));
    const repeat = await deliver(relay, sampleEvent(), { attempt: 2 });
    expect([repeat.status, await repeat.json()]).toEqual([409, { error: 'event_in_progress' }]);
    expect((await first).status).toBe(502);
  });

  it.each([
    [
      'a wrong secret',
      { secret: 'whsec_other000000000000000000000' },
      sampleEvent(),
      401,
      'signature_mismatch',
    ],
    [
      'a stale timestamp',
      { timestamp: Math.floor(Date.now() / 1000) - 301 },
      sampleEvent(),
      401,
      'timestamp_too_old',
    ],
    [
      'an unselected type',
      {},
      sampleEvent({ type: 'campaign.settled' }),
      422,
      'unexpected_event_type',
    ],
  ])('refuses %s without posting', async (_label, options, event, status, reason) => {
    await start();
    const res = await deliver(relay, event, options);
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ error: reason });
    expect(chat.posts).toHaveLength(0);
  });

  it('refuses an unsigned request and a non-JSON signed body, and keeps serving', async () => {
    await start();
    const unsigned = await fetch(relay.url, { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(400);
    const body = 'not json';
    const headers = deliveryHeaders({ secret: SECRET, body, type: 'submission.approved' });
    expect((await fetch(relay.url, { method: 'POST', headers, body })).status).toBe(400);
    expect((await deliver(relay)).status).toBe(200);
    expect(chat.posts).toHaveLength(1);
  });

  // Node checks request deadlines every 30 s by default: a stalled body was held ~28 s.
  it("cuts a request whose body stalls within about 15 s, not after Node's 30 s check", async () => {
    await start();
    const closedAfterMs = await msUntilStalledRequestClosed(Number(new URL(relay.url).port));
    expect(closedAfterMs).toBeGreaterThanOrEqual(14_000);
    expect(closedAfterMs).toBeLessThan(17_000);
  }, 25_000);

  it('never logs the chat URL', async () => {
    await start();
    chat.behaviour = 500;
    await deliver(relay);
    expect(logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(logs)).not.toContain('/services/T0');
  });
});

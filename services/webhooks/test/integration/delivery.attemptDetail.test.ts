// A delivery you can debug: each attempt keeps its time, duration, status or the connection error
// in words, the response headers that matter and the first 4 KB of the body (a 50 MB answer stores
// 4 KB and is not read whole), the request headers as sent (the signature shortened) and the exact
// event JSON; the detail is swept after its retention, the attempt itself stays. Real HTTPS servers
// answer, scripted per test.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DeliveryStatus, type Delivery } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { createTestCa, freePort, makeBusinessEvent, waitFor, type TestCa } from '@brand/testkit';
import { deliveriesOf, newBrandId, startHarness, type Harness } from './harness';

let h: Harness;
let foreignCa: TestCa;
const servers: Server[] = [];

beforeAll(async () => {
  h = await startHarness({ label: 'detail', env: { MAINTENANCE_INTERVAL_MS: '300' } });
  foreignCa = createTestCa(); // a CA the service does not trust
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  foreignCa?.remove();
  await h?.close();
});

const SETTLED = 'campaign.settled' as const;

interface Seen {
  rawBody: string;
}

/** An HTTPS server answering every request with `answer`; records the bodies it read. */
async function scriptedServer(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
  tls = h.ca.tls,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ rawBody: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `https://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, seen };
}

/** Registers `url` for a new brand, publishes one event and returns its delivery once attempted. */
async function deliverOnce(url: string): Promise<Delivery> {
  const brandId = newBrandId();
  const { receiver } = await h.client.call('addReceiver', {
    brand_id: brandId,
    url,
    label: 'detail',
    events: [EVENT_TYPES.toProto(SETTLED)],
    actor_email: 'owner@detail.test',
  });
  await h.producer.publish([makeBusinessEvent({ brandId, type: SETTLED })]);
  const listed = await waitFor(
    async () => (await deliveriesOf(h, receiver!.id)).find((d) => d.attempt_count >= 1),
    { timeoutMs: 30_000 },
  );
  // ListDeliveries stays light: no detail, no payload
  expect(listed.payload).toBe('');
  expect(listed.attempts[0]!.detail).toBeUndefined();
  return (await h.client.call('getDelivery', { delivery_id: listed.id })).delivery!;
}

const header = (headers: Array<{ name: string; value: string }>, name: string) =>
  headers.find((x) => x.name === name)?.value;

describe('an answer the receiver refused', () => {
  it('keeps the status, the headers that matter, the body and what was sent', async () => {
    const body = '{"error":"missing field customer_id"}';
    const server = await scriptedServer((_req, res) => {
      res.writeHead(400, {
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        'Retry-After': '120',
        'X-Other': 'x',
      });
      res.end(body);
    });
    const d = await deliverOnce(server.url);
    const a = d.attempts[0]!;
    expect(a).toMatchObject({
      number: 1,
      status_code: 400,
      error_class: 'http_status',
      error_message: '400 from the receiver',
    });
    expect(a.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(a.detail).toMatchObject({
      response_body: body,
      response_body_truncated: false,
      response_body_bytes: body.length,
      response_headers: [
        { name: 'content-type', value: 'application/json' },
        { name: 'content-length', value: String(body.length) },
        { name: 'retry-after', value: '120' },
      ],
    });
    // what was sent: the exact bytes, and the headers with the signature shortened
    expect(d.payload).toBe(server.seen[0]!.rawBody);
    const sent = a.detail!.request_headers;
    expect(sent.map((x) => x.name)).toEqual([
      'content-type',
      'x-service-event',
      'x-service-timestamp',
      'x-service-signature',
      'x-service-attempt',
    ]);
    expect(header(sent, 'x-service-signature')).toMatch(/^sha256=[0-9a-f]{8}…$/);
    expect(header(sent, 'x-service-event')).toBe(SETTLED);
    expect(header(sent, 'x-service-attempt')).toBe('1');
  });
});

describe('a 50 MB answer', () => {
  it('stores 4 KB and stops reading', async () => {
    const total = 50 * 1024 * 1024;
    let written = 0;
    const server = await scriptedServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': String(total) });
      const chunk = Buffer.alloc(64 * 1024, '<p>\0hello</p>');
      const pump = (): void => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (written >= total) res.end();
      };
      pump();
    });
    const d = await deliverOnce(server.url);
    expect(d.status).toBe(DeliveryStatus.DELIVERY_STATUS_SUCCEEDED);
    const detail = d.attempts[0]!.detail!;
    expect(Buffer.byteLength(detail.response_body)).toBeLessThanOrEqual(4096 * 2); // U+FFFD is 3 bytes
    expect(detail.response_body.startsWith('<p>\uFFFDhello</p>')).toBe(true);
    expect(detail).toMatchObject({ response_body_truncated: true, response_body_bytes: total });
    expect(written).toBeLessThan(total / 4); // the connection was closed, not drained
  });
});

describe('an answer behind an unasked 100 Continue', () => {
  it('is recorded as that, not as a connection closed unanswered, and retried', async () => {
    // the receiver took the event and answered 200, after a 100 nobody asked for: undici cannot
    // read past it (docs/webhooks.md#receivers-answer)
    const server = await scriptedServer((_req, res) => {
      res.writeContinue();
      res.end('ok');
    });
    const d = await deliverOnce(server.url);
    expect(server.seen.length).toBeGreaterThanOrEqual(1);
    const port = new URL(server.url).port;
    expect(d.attempts[0]).toMatchObject({
      status_code: 0,
      error_class: 'unexpected_continue',
      error_message:
        `127.0.0.1:${port} answered 100 Continue, which was not asked for ` +
        '(no Expect: 100-continue is sent); the sender cannot read the answer after it',
    });
    expect(d.status).toBe(DeliveryStatus.DELIVERY_STATUS_PENDING);
  });
});

describe('no answer at all', () => {
  it('says which address refused the connection', async () => {
    const port = await freePort();
    const d = await deliverOnce(`https://127.0.0.1:${port}/hooks`);
    expect(d.attempts[0]).toMatchObject({
      status_code: 0,
      error_class: 'connection_error',
      error_message: `connection refused by 127.0.0.1:${port}`,
    });
    expect(d.last_error).toBe(`connection refused by 127.0.0.1:${port}`);
    expect(d.attempts[0]!.detail).toMatchObject({ response_headers: [], response_body: '' });
    expect(d.attempts[0]!.detail!.request_headers).toHaveLength(5);
  });

  it('explains a certificate the service does not trust', async () => {
    const server = await scriptedServer((_req, res) => res.end('ok'), foreignCa.tls);
    const d = await deliverOnce(server.url);
    expect(d.attempts[0]).toMatchObject({ status_code: 0, error_class: 'tls_error' });
    expect(d.attempts[0]!.error_message).toMatch(
      /^TLS failed: the receiver's certificate is not signed by a trusted authority/,
    );
    expect(server.seen).toHaveLength(0);
  });
});

describe('retention', () => {
  it('sweeps the detail after ATTEMPT_DETAIL_RETENTION_MS and keeps the attempt', async () => {
    const server = await scriptedServer((_req, res) => res.writeHead(500).end('down'));
    const d = await deliverOnce(server.url);
    expect(d.attempts[0]!.detail).toBeDefined();
    // retention is measured from the event, a day partition at a time: the detail is moved to
    // an event 15 days old (a day without a partition of its own, so the default partition)
    await h.db.pool.query(
      `update webhooks.attempt_details set event_at = now() - interval '15 days' where delivery_id = $1`,
      [d.id],
    );
    const swept = await waitFor(
      async () => {
        const got = (await h.client.call('getDelivery', { delivery_id: d.id })).delivery!;
        return got.attempts[0]!.detail === undefined ? got : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(swept.attempts[0]).toMatchObject({
      number: 1,
      status_code: 500,
      error_message: '500 from the receiver',
    });
    expect(swept.payload).toBe(d.payload); // the event itself is kept with the delivery
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeliveryEvent } from './event';
import { msUntilStalledRequestClosed } from './listen';
import { sampleEvent } from './sampleEvent';
import { type ReceiverOptions, type RunningReceiver, startReceiver } from './server';
import { deliveryHeaders } from './sign';

const SECRET = 'whsec_9hT4kP2sW7yB3nM8qR1vX6zC0dF5gJ';

interface Answer {
  status: number;
  body: string;
}

/** POSTs with node's client (fetch cannot be given a private CA without extra packages). */
function post(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  ca?: Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = (url.startsWith('https:') ? https : http).request(
      url,
      { method: 'POST', headers, ...(ca ? { ca } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function deliver(
  receiver: RunningReceiver,
  event: DeliveryEvent = sampleEvent(),
  options: { attempt?: number; secret?: string } = {},
): Promise<Answer> {
  const body = JSON.stringify(event);
  const headers = deliveryHeaders({
    secret: options.secret ?? SECRET,
    body,
    type: event.type,
    attempt: options.attempt ?? 1,
  });
  return post(`${receiver.url}/webhooks`, headers, body);
}

describe('startReceiver over HTTP', () => {
  let receiver: RunningReceiver | undefined;
  const start = async (options: Partial<ReceiverOptions> = {}): Promise<RunningReceiver> => {
    receiver = await startReceiver({
      secrets: [SECRET],
      acceptedTypes: ['submission.approved', 'payout.paid'],
      ...options,
    });
    return receiver;
  };
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('answers 200 to a valid delivery, calls onEvent once and records it', async () => {
    const onEvent = jest.fn();
    const r = await start({ onEvent });
    const answer = await deliver(r);
    expect(answer).toEqual({ status: 200, body: '{"received":true,"duplicate":false}' });
    expect(onEvent).toHaveBeenCalledWith(sampleEvent(), { attempt: 1, secretIndex: 0 });
    expect(r.received).toHaveLength(1);
    expect(r.received[0]).toMatchObject({ n: 1, attempt: 1, outcome: 'processed', status: 200 });
    expect(r.received[0]!.event).toEqual(sampleEvent());
    expect(r.received[0]!.rawBody.toString()).toBe(JSON.stringify(sampleEvent()));
    expect(r.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 200 to a duplicate (same event, attempt 2) without processing it again', async () => {
    const onEvent = jest.fn();
    const r = await start({ onEvent });
    expect((await deliver(r, sampleEvent(), { attempt: 1 })).status).toBe(200);
    const second = await deliver(r, sampleEvent(), { attempt: 2 });
    expect(second).toEqual({ status: 200, body: '{"received":true,"duplicate":true}' });
    expect(onEvent).toHaveBeenCalledTimes(1);
    expect(r.received.map((d) => d.outcome)).toEqual(['processed', 'duplicate']);
  });

  it('refuses a wrong secret with 401 and an unselected type with 422, processing neither', async () => {
    const onEvent = jest.fn();
    const r = await start({ onEvent });
    const wrong = await deliver(r, sampleEvent(), { secret: 'whsec_wrong000000000000000000000' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body)).toMatchObject({ error: 'signature_mismatch' });
    const unselected = await deliver(r, sampleEvent({ type: 'campaign.settled' }));
    expect(unselected.status).toBe(422);
    expect(onEvent).not.toHaveBeenCalled();
    expect(r.received.map((d) => d.outcome)).toEqual(['refused', 'refused']);
  });

  // A review (2026-11-30): the history kept every request's body, unsigned ones too, 10,000 of
  // them by default: anyone who could reach a receiver made it hold ~10 GiB of 1 MiB bodies.
  it('keeps at most keepReceivedBytes of bodies in its history, the newest', async () => {
    const r = await start({ keepReceivedBytes: 3 * 1024 * 1024 });
    const body = Buffer.alloc(1024 * 1024 - 16, 'a');
    for (let i = 0; i < 8; i++) {
      const answer = await post(`${r.url}/webhooks`, { 'content-type': 'application/json' }, body);
      expect(answer.status).toBe(400);
    }
    const kept = r.received.reduce((sum, d) => sum + d.rawBody.length, 0);
    expect(kept).toBeLessThanOrEqual(3 * 1024 * 1024);
    expect(r.received.map((d) => d.n)).toEqual([6, 7, 8]);
  });

  it('answers 400 to a signed body that is not JSON, and keeps serving', async () => {
    const r = await start();
    const body = '{"id": "evt_1", ';
    const headers = deliveryHeaders({ secret: SECRET, body, type: 'submission.approved' });
    const answer = await post(r.url, headers, body);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'malformed_body' });
    expect((await deliver(r)).status).toBe(200);
  });

  it('answers 400 when headers are missing and 405 to other methods', async () => {
    const r = await start();
    const answer = await post(r.url, { 'Content-Type': 'application/json' }, '{}');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'missing_header' });
    const get = await fetch(r.url);
    expect(get.status).toBe(405);
  });

  it('answers 413 to a body over the cap without reading it all', async () => {
    const r = await start({ maxBodyBytes: 1024 });
    const body = JSON.stringify(sampleEvent({ object: { note: 'x'.repeat(4096) } }));
    const headers = deliveryHeaders({ secret: SECRET, body, type: 'submission.approved' });
    const answer = await post(r.url, headers, body);
    expect(answer.status).toBe(413);
    expect(r.received[0]).toMatchObject({ outcome: 'refused', status: 413 });
  });

  it('answers 500 when onEvent fails, and processes the retry', async () => {
    const onEvent = jest.fn().mockRejectedValueOnce(new Error('queue full'));
    const r = await start({ onEvent });
    expect((await deliver(r, sampleEvent(), { attempt: 1 })).status).toBe(500);
    expect((await deliver(r, sampleEvent(), { attempt: 2 })).status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(2);
    expect(r.received.map((d) => d.outcome)).toEqual(['failed', 'processed']);
  });

  it('follows a script: 500 twice, then normal processing on the third request', async () => {
    const onEvent = jest.fn();
    const r = await start({ onEvent, respondWith: (n) => (n <= 2 ? 500 : undefined) });
    const statuses = [];
    for (const attempt of [1, 2, 3])
      statuses.push((await deliver(r, sampleEvent(), { attempt })).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(onEvent).toHaveBeenCalledTimes(1);
    expect(onEvent).toHaveBeenCalledWith(sampleEvent(), { attempt: 3, secretIndex: 0 });
    expect(r.received.map((d) => d.verdict.ok)).toEqual([true, true, true]);
  });

  it('scripts a 410 and a hang; close() ends the hanging connection', async () => {
    const r = await start({
      respondWith: (n) => (n === 1 ? { status: 410, body: 'gone' } : 'hang'),
    });
    expect(await deliver(r)).toEqual({ status: 410, body: 'gone' });
    const hanging = deliver(r);
    await r.waitFor((received) => received.length === 2);
    expect(r.received[1]).toMatchObject({ outcome: 'scripted', status: 'hang' });
    await r.close();
    await expect(hanging).rejects.toThrow(/socket hang up|ECONNRESET/);
    receiver = undefined;
  });

  it("cuts a request whose body stalls within about 15 s, not after Node's 30 s check", async () => {
    const r = await start();
    const closedAfterMs = await msUntilStalledRequestClosed(r.port);
    expect(closedAfterMs).toBeGreaterThanOrEqual(14_000);
    expect(closedAfterMs).toBeLessThan(17_000);
  }, 25_000);

  it('waitFor rejects with a readable message when the condition never holds', async () => {
    const r = await start();
    await expect(r.waitFor((received) => received.length > 0, 50)).rejects.toThrow(
      /not met within 50 ms \(0 requests seen\)/,
    );
  });
});

describe('startReceiver over HTTPS', () => {
  let dir: string;
  let tls: { key: Buffer; cert: Buffer };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'receiver-tls-'));
    // A throwaway self-signed certificate for 127.0.0.1, trusted by this test's client only.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('verifies and accepts a delivery over TLS', async () => {
    const onEvent = jest.fn();
    const r = await startReceiver({
      tls,
      secrets: [SECRET],
      acceptedTypes: ['submission.approved'],
      onEvent,
    });
    try {
      expect(r.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const body = JSON.stringify(sampleEvent());
      const headers = deliveryHeaders({ secret: SECRET, body, type: 'submission.approved' });
      const answer = await post(r.url, headers, body, tls.cert);
      expect(answer.status).toBe(200);
      expect(onEvent).toHaveBeenCalledTimes(1);
    } finally {
      await r.close();
    }
  });
});

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { memoryDeduplication } from './deduplication';
import { signWebhookForTest } from './signWebhook';
import { webhookExpressHandler, webhookNodeHandler } from './nodeHttp';
import { WEBHOOK_EVENT_TYPES, type WebhookEvent } from './eventTypes';
import type { WebhookHandlerOptions } from './handlerOutcome';
import { verifyWebhookRequest, webhookFetchHandler } from './webRequest';

const SECRET = 'whsec_handlerTest000000000000000000';
const EVENT = {
  id: 'evt_handler0000000000001',
  type: 'payout.paid',
  created_at: '2026-11-22T10:00:00.123456Z',
  test: false,
  brand_id: 'br_handler01',
  data: { object: { resource: 'payouts', id: 'po_1', status: 'paid', amount: 150000 } },
};
const BODY = JSON.stringify(EVENT);

const signed = (body = BODY, secret = SECRET) =>
  signWebhookForTest({ secret, rawBody: body, eventType: 'payout.paid', attempt: 2 });

async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', body, headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function recorder() {
  const events: Array<{ event: WebhookEvent; attempt: number }> = [];
  const errors: unknown[] = [];
  const options: WebhookHandlerOptions = {
    secret: SECRET,
    eventTypes: WEBHOOK_EVENT_TYPES,
    onEvent: (event, { attempt }) => {
      events.push({ event, attempt });
    },
    onError: (e) => errors.push(e),
  };
  return { events, errors, options };
}

describe('webhookNodeHandler with node:http (reads the raw body itself)', () => {
  it('answers 200 and hands over the verified event; refuses a forgery with 401', async () => {
    const { events, errors, options } = recorder();
    const server = await serve(
      (req: http.IncomingMessage, res: http.ServerResponse) =>
        void webhookNodeHandler(options)(req, res),
    );
    try {
      await expect(post(server.url, BODY, await signed())).resolves.toEqual({
        status: 200,
        body: { received: true },
      });
      expect(events).toEqual([{ event: EVENT, attempt: 2 }]);
      const forged = await post(server.url, BODY, await signed(BODY, 'whsec_wrong'));
      expect(forged).toMatchObject({ status: 401, body: { error: 'signature_mismatch' } });
      expect(events).toHaveLength(1);
      expect(errors).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('answers 500 when onEvent throws, so the service retries', async () => {
    const { options } = recorder();
    const failing = { ...options, onEvent: () => Promise.reject(new Error('queue down')) };
    const server = await serve(
      (req: http.IncomingMessage, res: http.ServerResponse) =>
        void webhookNodeHandler(failing)(req, res),
    );
    try {
      await expect(post(server.url, BODY, await signed())).resolves.toMatchObject({
        status: 500,
        body: { error: 'processing_failed' },
      });
    } finally {
      await server.close();
    }
  });

  it('with deduplicate, answers a repeat 200 without onEvent, and runs a failed one again', async () => {
    const { events, errors, options } = recorder();
    let failNext = true;
    const deduplicate = memoryDeduplication();
    const handler = webhookNodeHandler({
      ...options,
      deduplicate,
      onEvent: (event, context) => {
        if (failNext) {
          failNext = false;
          throw new Error('queue down');
        }
        return options.onEvent(event, context);
      },
    });
    const server = await serve(
      (req: http.IncomingMessage, res: http.ServerResponse) => void handler(req, res),
    );
    try {
      // the first delivery fails: its claim is released, so the service's retry runs it
      expect((await post(server.url, BODY, await signed())).status).toBe(500);
      await expect(post(server.url, BODY, await signed())).resolves.toEqual({
        status: 200,
        body: { received: true },
      });
      // a repeat after the 2xx (a lost answer, a recovery): 200, and not handed over again
      await expect(post(server.url, BODY, await signed())).resolves.toEqual({
        status: 200,
        body: { received: true, duplicate: true },
      });
      expect(events).toHaveLength(1);
      expect(errors).toHaveLength(1); // the failure, not the duplicate
    } finally {
      await server.close();
    }
  });

  // A review of 2026-11-29: a repeat that came while the first delivery was still being handled
  // was answered 200 "duplicate", so the service stopped; when the first then failed, nothing
  // delivered the event again. A repeat while it is handled is 409, which the service retries.
  it('with deduplicate, answers a repeat during the first one 409, so a failure of the first loses nothing', async () => {
    const { events, options } = recorder();
    let finishFirst: (outcome: 'fail' | 'succeed') => void = () => undefined;
    let calls = 0;
    const handler = webhookNodeHandler({
      ...options,
      deduplicate: memoryDeduplication(),
      onEvent: async (event, context) => {
        if (++calls === 1) {
          const outcome = await new Promise<'fail' | 'succeed'>((r) => (finishFirst = r));
          if (outcome === 'fail') throw new Error('timed out downstream');
        }
        return options.onEvent(event, context);
      },
    });
    const server = await serve(
      (req: http.IncomingMessage, res: http.ServerResponse) => void handler(req, res),
    );
    try {
      const first = post(server.url, BODY, await signed());
      while (calls === 0) await new Promise((r) => setTimeout(r, 5));
      // the service's retry (its timeout passed) while the first is still being handled
      const during = await post(server.url, BODY, await signed());
      expect(during).toEqual({
        status: 409,
        body: {
          error: 'event_in_progress',
          message: expect.stringContaining('try again') as unknown,
        },
      });
      finishFirst('fail');
      expect((await first).status).toBe(500);
      // the next retry runs it, and a repeat after its 2xx is the duplicate it is
      expect((await post(server.url, BODY, await signed())).status).toBe(200);
      expect(events).toHaveLength(1);
      await expect(post(server.url, BODY, await signed())).resolves.toEqual({
        status: 200,
        body: { received: true, duplicate: true },
      });
    } finally {
      finishFirst('fail'); // never left hanging, whatever failed above
      await server.close();
    }
  });

  it('refuses a body over maxBodyBytes with 413', async () => {
    const { events, options } = recorder();
    const server = await serve(
      (req: http.IncomingMessage, res: http.ServerResponse) =>
        void webhookNodeHandler({ ...options, maxBodyBytes: 100 })(req, res),
    );
    try {
      await expect(post(server.url, BODY, await signed())).resolves.toMatchObject({
        status: 413,
        body: { error: 'body_too_large' },
      });
      expect(events).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('webhookExpressHandler', () => {
  /** Posts a signed delivery to an express route of `parsers` then the handler. */
  async function throughExpress(parsers: express.RequestHandler[]) {
    const { events, errors, options } = recorder();
    const app = express();
    app.post('/hooks', ...parsers, webhookExpressHandler(options));
    const server = await serve(app);
    try {
      return { answer: await post(server.url, BODY, await signed()), events, errors };
    } finally {
      await server.close();
    }
  }

  it('verifies after express.raw() (a Buffer in req.body)', async () => {
    const { answer, events } = await throughExpress([express.raw({ type: 'application/json' })]);
    expect(answer.status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('verifies with no body parser at all (reads the stream)', async () => {
    const { answer, events } = await throughExpress([]);
    expect(answer.status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('refuses to verify after express.json() (500 body_not_raw with the fix), processing nothing', async () => {
    const { answer, events, errors } = await throughExpress([express.json()]);
    expect(answer).toMatchObject({ status: 500, body: { error: 'body_not_raw' } });
    expect(answer.body.message).toContain('express.raw');
    expect(events).toHaveLength(0);
    expect(errors).toHaveLength(1);
  });
});

describe('fetch-style Request', () => {
  const request = async (body = BODY, headers?: Record<string, string>) =>
    new Request('https://receiver.example/hooks', {
      method: 'POST',
      body,
      headers: headers ?? (await signed(body)),
    });

  it('verifyWebhookRequest reads the raw body and returns event and bytes', async () => {
    const verified = await verifyWebhookRequest(await request(), {
      secret: SECRET,
      eventTypes: ['payout.paid'],
    });
    expect(verified.event).toEqual(EVENT);
    expect(new TextDecoder().decode(verified.rawBody)).toBe(BODY);
  });

  it('refuses a request whose body was already read', async () => {
    const req = await request();
    await req.json();
    await expect(
      verifyWebhookRequest(req, { secret: SECRET, eventTypes: WEBHOOK_EVENT_TYPES }),
    ).rejects.toMatchObject({
      reason: 'body_not_raw',
    });
  });

  it('refuses a declared or actual body over the limit', async () => {
    await expect(
      verifyWebhookRequest(await request(), {
        secret: SECRET,
        eventTypes: WEBHOOK_EVENT_TYPES,
        maxBodyBytes: 10,
      }),
    ).rejects.toMatchObject({
      reason: 'body_too_large',
    });
  });

  it('webhookFetchHandler answers Responses: 200, 422 for an unselected type, 400 for missing headers', async () => {
    const { events, options } = recorder();
    const ok = await webhookFetchHandler(options)(await request());
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ received: true });
    const unselected = await webhookFetchHandler({ ...options, eventTypes: ['campaign.settled'] })(
      await request(),
    );
    expect(unselected.status).toBe(422);
    expect(await unselected.json()).toMatchObject({ error: 'unexpected_event_type' });
    const bare = await webhookFetchHandler(options)(
      await request(BODY, { 'content-type': 'application/json' }),
    );
    expect(bare.status).toBe(400);
    expect(events).toHaveLength(1);
  });
});

describe('readNodeRawBody over a chunked body without Content-Length', () => {
  it('answers 413 once the body passes the limit, and the connection still gets the answer', async () => {
    const { events, options } = recorder();
    const server = await serve(
      (req: http.IncomingMessage, res: http.ServerResponse) =>
        void webhookNodeHandler({ ...options, maxBodyBytes: 1_000 })(req, res),
    );
    try {
      const headers = await signed();
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(server.url, { method: 'POST', headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        // chunked: no Content-Length, so only counting the bytes can stop it
        for (let i = 0; i < 20; i++) req.write('x'.repeat(500));
        req.end();
      });
      expect(status).toBe(413);
      expect(events).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

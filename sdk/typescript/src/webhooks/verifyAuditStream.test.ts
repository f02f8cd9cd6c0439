import { createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import { WEBHOOK_EVENT_TYPES } from './eventTypes';
import { verifyNodeAuditStream } from './nodeHttp';
import { signWebhookForTest } from './signWebhook';
import { WebhookVerificationError, type WebhookVerificationReason } from './verificationError';
import { verifyAuditStreamDelivery, type VerifyAuditStreamOptions } from './verifyAuditStream';
import { verifyWebhookDelivery } from './verifyWebhook';

const SECRET = 'whsec_9aK2mP4qR7sT1uV3wX5yZ8bC0dE6fG';
const NOW = new Date('2026-11-30T10:00:05Z');
const NOW_S = NOW.getTime() / 1000;

function entry(position: number, over: Record<string, unknown> = {}) {
  return {
    position,
    id: `act_${position}Qw8Er2Ty6Ui`,
    kind: 'activity',
    brand_id: 'br_7Hq2Wm9Kd4Lp',
    created_at: '2026-11-30T10:00:00.123456Z',
    action: 'key.created',
    actor: { member_id: 'mem_1', email: 'owner@example.com' },
    subject_id: 'key_1',
    summary: 'A key was created',
    client_address: '203.0.113.9',
    user_agent: 'test',
    source: 'records',
    test: false,
    ...over,
  };
}

/** A run's body as services/webhooks/src/streams/streamRequest.ts writes it: one entry a line, each ended by \n. */
const linesOf = (entries: readonly object[]): string =>
  entries.length === 0 ? '' : `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;

const BODY = linesOf([entry(41), entry(42, { kind: 'request', action: 'request.refused' })]);

/** Signed independently of the package (node:crypto), exactly as the service signs. */
function sign(secret: string, timestamp: number | string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** A stream's request: the headers streamRequest sends, no X-Service-Event. */
function run(over: { body?: string | Buffer; timestamp?: number; secret?: string } = {}) {
  const body = over.body ?? BODY;
  const timestamp = over.timestamp ?? NOW_S;
  return {
    rawBody: body,
    headers: {
      'content-type': 'application/x-ndjson',
      'x-service-timestamp': String(timestamp),
      'x-service-signature': sign(over.secret ?? SECRET, timestamp, body),
      'x-service-attempt': '2',
    } as Record<string, string | string[]>,
  };
}

function verify(
  input: Partial<VerifyAuditStreamOptions> & Pick<VerifyAuditStreamOptions, 'headers' | 'rawBody'>,
) {
  return verifyAuditStreamDelivery({ secret: SECRET, now: NOW, ...input });
}

async function expectRefused(
  promise: Promise<unknown>,
  reason: WebhookVerificationReason,
  status?: number,
): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WebhookVerificationError))
    throw new Error(`expected a refusal, got ${String(error)}`);
  expect(error.reason).toBe(reason);
  if (status !== undefined) expect(error.status).toBe(status);
  return error;
}

describe('verifyAuditStreamDelivery: authentic runs', () => {
  it('returns the typed entries in order, the attempt and the timestamp', async () => {
    const verified = await verify(run());
    expect(verified.attempt).toBe(2);
    expect(verified.timestamp).toBe(NOW_S);
    expect(verified.entries.map((e) => e.position)).toEqual([41, 42]);
    expect(verified.entries[1]).toEqual(entry(42, { kind: 'request', action: 'request.refused' }));
  });

  it('takes the body as a string, a Buffer, a Uint8Array or an ArrayBuffer', async () => {
    const { headers } = run();
    const bytes = Buffer.from(BODY);
    const copy = new Uint8Array(bytes).buffer;
    for (const rawBody of [BODY, bytes, new Uint8Array(bytes), copy]) {
      expect((await verify({ headers, rawBody })).entries).toHaveLength(2);
    }
  });

  it('reads header names in any letter case, and fetch Headers', async () => {
    const { headers, rawBody } = run();
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect((await verify({ headers: upper, rawBody })).entries).toHaveLength(2);
    const fetchHeaders = new Headers(headers as Record<string, string>);
    expect((await verify({ headers: fetchHeaders, rawBody })).entries).toHaveLength(2);
  });

  it('accepts an empty run (no entries) and the Test entry (position 0, test: true)', async () => {
    expect((await verify(run({ body: '' }))).entries).toEqual([]);
    const test = entry(0, { id: 'tst_abc', action: 'audit_stream.tested', test: true });
    expect((await verify(run({ body: linesOf([test]) }))).entries).toEqual([test]);
  });

  it('keeps unknown fields and values it does not know yet (a refused run would block the stream)', async () => {
    const later = entry(7, { kind: 'export', source: 'billing', region: 'eu' });
    expect((await verify(run({ body: linesOf([later]) }))).entries[0]).toEqual(later);
  });

  it('accepts either secret while rotating, and the signature in upper-case hex', async () => {
    const signed = run({ secret: 'whsec_old' });
    await expect(verify({ ...signed, secret: [SECRET, 'whsec_old'] })).resolves.toBeDefined();
    await expectRefused(verify({ ...signed, secret: [SECRET] }), 'signature_mismatch', 401);
    const { headers, rawBody } = run();
    const sig = String(headers['x-service-signature']);
    const upper = { ...headers, 'x-service-signature': `sha256=${sig.slice(7).toUpperCase()}` };
    await expect(verify({ headers: upper, rawBody })).resolves.toBeDefined();
  });
});

describe('verifyAuditStreamDelivery: hostile and broken runs', () => {
  it('refuses a signature made with another secret', async () => {
    await expectRefused(verify(run({ secret: 'whsec_other' })), 'signature_mismatch', 401);
  });

  it('refuses the body changed by one byte after signing', async () => {
    const { headers } = run();
    const changed = BODY.replace('"position":42', '"position":43');
    await expectRefused(verify({ headers, rawBody: changed }), 'signature_mismatch', 401);
  });

  it('refuses a timestamp outside the window either way, before looking at the signature', async () => {
    await expectRefused(verify(run({ timestamp: NOW_S - 301 })), 'timestamp_too_old', 401);
    await expectRefused(verify(run({ timestamp: NOW_S + 301 })), 'timestamp_in_future', 401);
    await expect(verify(run({ timestamp: NOW_S - 300 }))).resolves.toBeDefined();
    const stale = run({ timestamp: NOW_S - 3600, secret: 'whsec_other' });
    await expectRefused(verify(stale), 'timestamp_too_old');
    await expect(
      verify({ ...run({ timestamp: NOW_S - 30 }), toleranceSeconds: 10 }),
    ).rejects.toThrow('more than 10 s old');
  });

  it('refuses each missing signing header, and every missing one before any malformed one', async () => {
    for (const name of ['x-service-timestamp', 'x-service-signature', 'x-service-attempt']) {
      const { headers, rawBody } = run();
      const { [name]: _gone, ...rest } = headers;
      const error = await expectRefused(verify({ headers: rest, rawBody }), 'missing_header', 400);
      expect(error.message).toBe(`${name} is missing`);
      const junk = { ...rest, 'x-service-signature': 'junk' };
      if (name !== 'x-service-signature')
        await expectRefused(verify({ headers: junk, rawBody }), 'missing_header');
    }
  });

  it('refuses headers not in their exact format, or sent twice', async () => {
    const { headers, rawBody } = run();
    const sig = String(headers['x-service-signature']);
    for (const over of [
      { 'x-service-signature': sig.replace('sha256=', 'sha1=') },
      { 'x-service-signature': ` ${sig}` },
      { 'x-service-signature': [sig, sig] },
      { 'x-service-timestamp': `${NOW_S}.5` },
      { 'x-service-attempt': '0' },
    ]) {
      await expectRefused(
        verify({ headers: { ...headers, ...over }, rawBody }),
        'malformed_header',
      );
    }
  });

  it('refuses X-Service-Event: a stream never sends it, so that is a webhook delivery at the wrong endpoint', async () => {
    const { headers, rawBody } = run();
    const error = await expectRefused(
      verify({ headers: { ...headers, 'x-service-event': 'payout.paid' }, rawBody }),
      'malformed_header',
      400,
    );
    expect(error.message).toMatch(/x-service-event is present.*verifyWebhook/);
    // a genuine webhook delivery signed with the same secret is refused the same way
    const event = JSON.stringify({ id: 'evt_1', type: 'payout.paid' });
    const signed = await signWebhookForTest({
      secret: SECRET,
      rawBody: event,
      eventType: 'payout.paid',
      timestamp: NOW_S,
    });
    await expectRefused(verify({ headers: signed, rawBody: event }), 'malformed_header');
  });

  it('is needed: the webhook verifier refuses every genuine run (no X-Service-Event)', async () => {
    await expectRefused(
      verifyWebhookDelivery({
        ...run(),
        secret: SECRET,
        now: NOW,
        eventTypes: WEBHOOK_EVENT_TYPES,
      }),
      'missing_header',
    );
  });

  it.each([
    [
      'a line that is not JSON',
      `${JSON.stringify(entry(1))}\n{"position": 2,\n`,
      'line 2 is not JSON',
    ],
    [
      'no newline after the last line',
      JSON.stringify(entry(1)),
      'body does not end with a newline (JSON lines)',
    ],
    ['an empty line', `${JSON.stringify(entry(1))}\n\n`, 'line 2 is not JSON'],
    ['a JSON array', `[${JSON.stringify(entry(1))}]\n`, 'line 1 is not an audit entry'],
    [
      'an entry without its id',
      linesOf([{ ...entry(1), id: undefined }]),
      'line 1 is not an audit entry',
    ],
    ['a negative position', linesOf([entry(-1)]), 'line 1 is not an audit entry'],
    ['a fractional position', linesOf([entry(1.5)]), 'line 1 is not an audit entry'],
    ['test as a string', linesOf([entry(1, { test: 'false' })]), 'line 1 is not an audit entry'],
    [
      'an empty action',
      linesOf([entry(1), entry(2, { action: '' })]),
      'line 2 is not an audit entry',
    ],
  ])(
    'refuses an authentic body with %s as malformed_body (400), naming the line',
    async (_what, body, message) => {
      const error = await expectRefused(verify(run({ body })), 'malformed_body', 400);
      expect(error.message).toBe(message);
    },
  );

  it('refuses a signed body that is not valid UTF-8, never echoing an entry', async () => {
    const body = Buffer.concat([
      Buffer.from(BODY.slice(0, 20)),
      Buffer.from([0xff]),
      Buffer.from(BODY.slice(20)),
    ]);
    const error = await expectRefused(verify(run({ body })), 'malformed_body');
    expect(error.message).toBe('body is not UTF-8');
  });

  it('refuses an unset secret with no_secret, and a bad tolerance or clock as programming errors', async () => {
    const unset = process.env.BRAND_TEST_UNSET_AUDIT_STREAM_SECRET!;
    await expectRefused(verify({ ...run(), secret: unset }), 'no_secret', 500);
    await expectRefused(verify({ ...run(), secret: [SECRET, ''] }), 'no_secret', 500);
    await expect(verify({ ...run(), toleranceSeconds: -1 })).rejects.toThrow(
      'verifyAuditStreamDelivery: toleranceSeconds must be a number, 0 or more.',
    );
    await expect(
      verify({ ...run({ timestamp: 1 }), now: new Date('not a date') }),
    ).rejects.toBeInstanceOf(TypeError);
  });

  it('refuses a parsed body as body_not_raw', async () => {
    const { headers } = run();
    const parsed = [entry(41), entry(42)] as unknown as string;
    await expectRefused(verify({ headers, rawBody: parsed }), 'body_not_raw', 500);
  });
});

describe('verifyNodeAuditStream', () => {
  /** A Node request: a readable stream of the body's chunks, with headers. */
  const request = (headers: Record<string, string | string[]>, chunks: Buffer[]) =>
    Object.assign(Readable.from(chunks), { headers });

  it('reads the raw body itself and verifies it as the stream sent it', async () => {
    const { headers } = run();
    const bytes = Buffer.from(BODY);
    const req = request(headers, [bytes.subarray(0, 10), bytes.subarray(10)]);
    const verified = await verifyNodeAuditStream(req, { secret: SECRET, now: NOW });
    expect(verified.entries).toHaveLength(2);
    expect(Buffer.from(verified.rawBody).toString()).toBe(BODY);
    await expectRefused(
      verifyNodeAuditStream(request(headers, [bytes]), { secret: 'whsec_other', now: NOW }),
      'signature_mismatch',
    );
    await expectRefused(
      verifyNodeAuditStream(request(headers, [bytes]), {
        secret: SECRET,
        now: NOW,
        maxBodyBytes: 10,
      }),
      'body_too_large',
      413,
    );
  });
});

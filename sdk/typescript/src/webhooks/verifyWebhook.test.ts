import { createHmac } from 'node:crypto';
import { memoryDeduplication } from './deduplication';
import { WEBHOOK_EVENT_TYPES } from './eventTypes';
import { signWebhookForTest } from './signWebhook';
import { WebhookVerificationError, type WebhookVerificationReason } from './verificationError';
import { verifyWebhook, verifyWebhookDelivery, type VerifyWebhookOptions } from './verifyWebhook';

const SECRET = 'whsec_3fJ8kL2mN9pQ4rS7tU1vW6xY0zA5bC';
const NOW = new Date('2026-11-22T10:00:05Z');
const NOW_S = NOW.getTime() / 1000;

const EVENT = {
  id: 'evt_2kQ9x7Lm4Pz8Rt1Vb3Nc5D',
  type: 'submission.approved',
  created_at: '2026-11-22T10:00:00.123456Z',
  test: false,
  brand_id: 'br_7Hq2Wm9Kd4Lp',
  data: { object: { resource: 'submissions', id: 'sub_4Tn8Qw2Er6Ty', status: 'approved' } },
};
const BODY = JSON.stringify(EVENT);

/** Signed independently of the package (node:crypto), exactly as the service signs. */
function sign(secret: string, timestamp: number | string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

function delivery(
  over: { body?: string; timestamp?: number; secret?: string; type?: string } = {},
) {
  const body = over.body ?? BODY;
  const timestamp = over.timestamp ?? NOW_S;
  return {
    rawBody: body,
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Event': over.type ?? 'submission.approved',
      'X-Service-Timestamp': String(timestamp),
      'X-Service-Signature': sign(over.secret ?? SECRET, timestamp, body),
      'X-Service-Attempt': '1',
    } as Record<string, string | string[]>,
  };
}

function verify(
  input: Partial<VerifyWebhookOptions> & Pick<VerifyWebhookOptions, 'headers' | 'rawBody'>,
) {
  return verifyWebhookDelivery({
    secret: SECRET,
    now: NOW,
    eventTypes: WEBHOOK_EVENT_TYPES,
    ...input,
  });
}

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WebhookVerificationError))
    throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

async function expectRefused(
  promise: Promise<unknown>,
  reason: WebhookVerificationReason,
  status?: number,
) {
  const error = await refusal(promise);
  expect(error.reason).toBe(reason);
  if (status !== undefined) expect(error.status).toBe(status);
  return error;
}

describe('verifyWebhook: authentic deliveries', () => {
  it('returns the typed event, the attempt and the timestamp', async () => {
    await expect(verify(delivery())).resolves.toEqual({
      event: EVENT,
      attempt: 1,
      timestamp: NOW_S,
      deduplicationKey: `${EVENT.id}:${EVENT.data.object.id}`,
    });
    await expect(
      verifyWebhook({
        ...delivery(),
        secret: SECRET,
        now: NOW,
        eventTypes: ['submission.approved'],
      }),
    ).resolves.toEqual(EVENT);
  });

  it('takes the body as a string, a Buffer, a Uint8Array or an ArrayBuffer', async () => {
    const { headers } = delivery();
    const bytes = new TextEncoder().encode(BODY);
    for (const rawBody of [BODY, Buffer.from(BODY), bytes, bytes.buffer.slice(0)]) {
      await expect(verify({ headers, rawBody })).resolves.toMatchObject({ event: EVENT });
    }
  });

  it('reads header names in any letter case, and fetch Headers', async () => {
    const { headers, rawBody } = delivery();
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    for (const h of [lower, upper, new Headers(headers as Record<string, string>)]) {
      await expect(verify({ headers: h, rawBody })).resolves.toMatchObject({ event: EVENT });
    }
  });

  it('accepts a body with non-ASCII characters, signed as its UTF-8 bytes', async () => {
    const body = JSON.stringify({
      ...EVENT,
      data: { object: { ...EVENT.data.object, note: 'Maligayang pagdating ✓ ñ' } },
    });
    await expect(verify(delivery({ body }))).resolves.toMatchObject({ attempt: 1 });
  });

  it('accepts the signature in upper-case hex', async () => {
    const { headers, rawBody } = delivery();
    headers['X-Service-Signature'] =
      `sha256=${String(headers['X-Service-Signature']).slice(7).toUpperCase()}`;
    await expect(verify({ headers, rawBody })).resolves.toMatchObject({ attempt: 1 });
  });

  it('accepts either secret while rotating, and refuses once the old one is dropped', async () => {
    const OLD = 'whsec_old0000000000000000000000000';
    const NEW = 'whsec_new1111111111111111111111111';
    await expect(
      verify({ ...delivery({ secret: OLD }), secret: [NEW, OLD] }),
    ).resolves.toBeDefined();
    await expect(
      verify({ ...delivery({ secret: NEW }), secret: [NEW, OLD] }),
    ).resolves.toBeDefined();
    await expectRefused(
      verify({ ...delivery({ secret: OLD }), secret: [NEW] }),
      'signature_mismatch',
      401,
    );
  });

  it('matches signWebhookForTest and a known answer', async () => {
    // printf '1795000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
    const headers = await signWebhookForTest({
      secret: 'whsec_test',
      rawBody: '{"a":1}',
      eventType: 'x.y',
      timestamp: 1795000000,
    });
    expect(headers['x-service-signature']).toBe(
      'sha256=14cdf372534acd098c83cbb3a5b7081138ef9e1e2ce9f43221f2a73884581201',
    );
    const signed = await signWebhookForTest({
      secret: SECRET,
      rawBody: BODY,
      eventType: EVENT.type,
      timestamp: NOW_S,
    });
    await expect(verify({ headers: signed, rawBody: BODY })).resolves.toMatchObject({
      event: EVENT,
    });
  });
});

describe('verifyWebhook: hostile and broken deliveries', () => {
  it('refuses a signature made with another secret', async () => {
    await expectRefused(
      verify(delivery({ secret: 'whsec_someoneElse0000000000000000' })),
      'signature_mismatch',
      401,
    );
  });

  it('refuses the body changed by one byte after signing, anywhere in it', async () => {
    const { headers, rawBody } = delivery();
    for (const position of [0, Math.floor(rawBody.length / 2), rawBody.length - 1]) {
      const bytes = Buffer.from(rawBody);
      bytes[position] = bytes[position]! ^ 0x01;
      await expectRefused(verify({ headers, rawBody: bytes }), 'signature_mismatch');
    }
    await expectRefused(verify({ headers, rawBody: `${rawBody} ` }), 'signature_mismatch');
  });

  it('refuses a body that was parsed and re-stringified (different bytes, same JSON)', async () => {
    const { headers, rawBody } = delivery({ body: JSON.stringify(EVENT, null, 2) });
    const restringified = JSON.stringify(JSON.parse(rawBody));
    await expectRefused(verify({ headers, rawBody: restringified }), 'signature_mismatch');
  });

  it('refuses a parsed object instead of the raw body, saying how to fix it', async () => {
    const { headers } = delivery();
    const error = await expectRefused(
      verify({ headers, rawBody: EVENT as unknown as string }),
      'body_not_raw',
      500,
    );
    expect(error.message).toContain('express.raw');
    await expectRefused(
      verify({ headers, rawBody: undefined as unknown as string }),
      'body_not_raw',
    );
  });

  it.each([
    ['exactly 300 s old', -300, undefined],
    ['exactly 300 s ahead', 300, undefined],
    ['299 s old', -299, undefined],
    ['299 s ahead', 299, undefined],
    ['301 s old', -301, 'timestamp_too_old'],
    ['301 s ahead', 301, 'timestamp_in_future'],
    ['a day old', -86_400, 'timestamp_too_old'],
    ['at Unix time 0', -NOW_S, 'timestamp_too_old'],
  ] as const)('judges a timestamp %s', async (_label, offset, reason) => {
    const result = verify(delivery({ timestamp: NOW_S + offset }));
    if (reason === undefined) await expect(result).resolves.toBeDefined();
    else await expectRefused(result, reason, 401);
  });

  it('measures the window to the second, whatever the milliseconds of now', async () => {
    const d = delivery({ timestamp: NOW_S - 300 });
    await expect(verify({ ...d, now: new Date(NOW.getTime() + 999) })).resolves.toBeDefined();
    await expectRefused(verify({ ...d, now: new Date(NOW.getTime() + 1000) }), 'timestamp_too_old');
  });

  it('honours a custom tolerance', async () => {
    await expectRefused(
      verify({ ...delivery({ timestamp: NOW_S - 61 }), toleranceSeconds: 60 }),
      'timestamp_too_old',
    );
    await expect(
      verify({ ...delivery({ timestamp: NOW_S - 60 }), toleranceSeconds: 60 }),
    ).resolves.toBeDefined();
  });

  it('checks the window before the signature: a stale replay is refused even when authentic', async () => {
    await expectRefused(verify(delivery({ timestamp: NOW_S - 3600 })), 'timestamp_too_old');
  });

  it('refuses a re-signed timestamp: the signature covers it', async () => {
    const { headers, rawBody } = delivery({ timestamp: NOW_S - 1000 });
    headers['X-Service-Timestamp'] = String(NOW_S);
    await expectRefused(verify({ headers, rawBody }), 'signature_mismatch');
  });

  it.each(['X-Service-Event', 'X-Service-Timestamp', 'X-Service-Signature', 'X-Service-Attempt'])(
    'refuses a delivery without %s (or with it empty)',
    async (name) => {
      const { headers, rawBody } = delivery();
      const { [name]: _dropped, ...rest } = headers;
      const error = await expectRefused(verify({ headers: rest, rawBody }), 'missing_header', 400);
      expect(error.message).toContain(name.toLowerCase());
      await expectRefused(
        verify({ headers: { ...headers, [name]: '' }, rawBody }),
        'missing_header',
      );
    },
  );

  it.each([
    ['X-Service-Event', 'submission approved'],
    ['X-Service-Timestamp', '1795000000.5'],
    ['X-Service-Timestamp', 'yesterday'],
    ['X-Service-Timestamp', '-1795000000'],
    ['X-Service-Timestamp', ' 1795000000'],
    ['X-Service-Timestamp', '1'.repeat(13)],
    ['X-Service-Signature', 'a'.repeat(64)],
    ['X-Service-Signature', `sha1=${'a'.repeat(64)}`],
    ['X-Service-Signature', `SHA256=${'a'.repeat(64)}`],
    ['X-Service-Signature', `sha256=${'a'.repeat(63)}`],
    ['X-Service-Signature', `sha256=${'a'.repeat(66)}`],
    ['X-Service-Signature', `sha256=${'g'.repeat(64)}`],
    ['X-Service-Attempt', '0'],
    ['X-Service-Attempt', 'two'],
  ])('refuses a malformed %s (%s)', async (name, value) => {
    const { headers, rawBody } = delivery();
    await expectRefused(
      verify({ headers: { ...headers, [name]: value }, rawBody }),
      'malformed_header',
      400,
    );
  });

  it('refuses two signatures in the header, even when one of them is right', async () => {
    const { headers, rawBody } = delivery();
    const good = headers['X-Service-Signature'] as string;
    const bad = sign('whsec_wrong', NOW_S, rawBody);
    // Node's req.headers style (an array), a comma-joined value, fetch Headers (joins with ", "),
    // and the same header under two spellings of its name.
    const variants: Array<VerifyWebhookOptions['headers']> = [
      { ...headers, 'X-Service-Signature': [good, bad] },
      { ...headers, 'X-Service-Signature': `${bad},${good}` },
      { ...headers, 'X-Service-Signature': `${good} ${bad}` },
      new Headers([
        ...Object.entries(headers as Record<string, string>),
        ['X-Service-Signature', bad],
      ]),
      { ...headers, 'x-service-signature': bad },
    ];
    for (const h of variants)
      await expectRefused(verify({ headers: h, rawBody }), 'malformed_header');
  });

  it('refuses an event type the endpoint did not select (authentic but unwanted: 422)', async () => {
    await expectRefused(
      verify({ ...delivery(), eventTypes: ['payout.paid'] }),
      'unexpected_event_type',
      422,
    );
  });

  it('refuses a type outside the four even when listed, as unexpected rather than malformed', async () => {
    const body = JSON.stringify({ ...EVENT, type: 'submission.created' });
    const types = ['submission.created'] as unknown as ['payout.paid'];
    await expectRefused(
      verify({ ...delivery({ body, type: 'submission.created' }), eventTypes: types }),
      'unexpected_event_type',
    );
  });

  it("refuses X-Service-Event differing from the signed body's type (the header is not signed)", async () => {
    await expectRefused(verify(delivery({ type: 'payout.paid' })), 'malformed_header', 400);
  });

  it.each([
    ['not JSON', '{"id":'],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
    ['no data.object', JSON.stringify({ ...EVENT, data: {} })],
    [
      'a record without id',
      JSON.stringify({ ...EVENT, data: { object: { resource: 'submissions', id: 7 } } }),
    ],
    ['test not a boolean', JSON.stringify({ ...EVENT, test: 'no' })],
    ['an empty id', JSON.stringify({ ...EVENT, id: '' })],
  ])('refuses a signed body that is %s as malformed_body', async (_label, body) => {
    await expectRefused(verify(delivery({ body })), 'malformed_body', 400);
  });

  it('refuses a signed body that is not valid UTF-8', async () => {
    const body = Buffer.concat([
      Buffer.from(BODY.slice(0, -2)),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('}}'),
    ]);
    const timestamp = NOW_S;
    const headers = { ...delivery().headers, 'X-Service-Signature': sign(SECRET, timestamp, body) };
    await expectRefused(verify({ headers, rawBody: body }), 'malformed_body');
  });

  it('refuses everything when no secret is configured (500: the receiver must be fixed)', async () => {
    await expectRefused(verify({ ...delivery(), secret: [] }), 'no_secret', 500);
    await expectRefused(verify({ ...delivery(), secret: '' }), 'no_secret', 500);
  });

  it('refuses an unset secret with no_secret, not a TypeError (issue 23)', async () => {
    // What `process.env.WEBHOOK_SECRET!` gives when the variable is unset, alone or in a list.
    const unset = process.env.BRAND_TEST_UNSET_WEBHOOK_SECRET!;
    await expectRefused(verify({ ...delivery(), secret: unset }), 'no_secret', 500);
    for (const secret of [[unset], [SECRET, unset], [unset, SECRET], [SECRET, '']]) {
      await expectRefused(verify({ ...delivery(), secret }), 'no_secret', 500);
    }
    for (const secret of [null, 42, {}] as unknown as string[]) {
      await expectRefused(verify({ ...delivery(), secret }), 'no_secret', 500);
    }
    await expect(verify({ ...delivery(), secret: [unset] })).rejects.toThrow(
      'secret[0] must be a non-empty string, got undefined (is its environment variable set?)',
    );
  });

  it('reports the most basic problem first: missing before malformed before stale', async () => {
    const { headers, rawBody } = delivery({ timestamp: NOW_S - 3600 });
    const { 'X-Service-Attempt': _a, ...noAttempt } = headers;
    await expectRefused(
      verify({ headers: { ...noAttempt, 'X-Service-Signature': 'junk' }, rawBody }),
      'missing_header',
    );
    await expectRefused(
      verify({ headers: { ...headers, 'X-Service-Signature': 'junk' }, rawBody }),
      'malformed_header',
    );
  });

  it('refuses a negative or non-numeric tolerance as a programming error', async () => {
    await expect(verify({ ...delivery(), toleranceSeconds: -1 })).rejects.toBeInstanceOf(TypeError);
    await expect(verify({ ...delivery(), toleranceSeconds: Number.NaN })).rejects.toBeInstanceOf(
      TypeError,
    );
  });

  // A review (2026-11-30): an invalid `now` made every window comparison false, and a delivery
  // signed in 1970 was accepted.
  it('refuses an invalid `now` as a programming error, never accepting an old delivery', async () => {
    await expect(
      verify({ ...delivery({ timestamp: 1 }), now: new Date('not a date') }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});

describe('verifyWebhook: rule 5 needs the selected types', () => {
  it.each([
    ['absent', undefined],
    ['empty', []],
    ['not a list', 'payout.paid'],
  ])(
    'refuses eventTypes %s as no_event_types (500: the receiver is misconfigured)',
    async (_, eventTypes) => {
      await expectRefused(
        verifyWebhookDelivery({
          ...delivery(),
          secret: SECRET,
          now: NOW,
          eventTypes: eventTypes as unknown as VerifyWebhookOptions['eventTypes'],
        }),
        'no_event_types',
        500,
      );
    },
  );
});

describe('verifyWebhook: rule 6 with a deduplicate store', () => {
  it('claims a first delivery and refuses its repeat as duplicate_event (200), on the event and record ids', async () => {
    const deduplicate = memoryDeduplication();
    await expect(verify({ ...delivery(), deduplicate })).resolves.toMatchObject({ event: EVENT });
    // a retry: a new attempt number and signing time, the same event
    const retry = delivery({ timestamp: NOW_S - 60 });
    retry.headers['X-Service-Attempt'] = '2';
    const error = await expectRefused(verify({ ...retry, deduplicate }), 'duplicate_event', 200);
    expect(error.message).toContain(EVENT.id);
    // the same event about another record is another key
    const other = JSON.stringify({
      ...EVENT,
      data: { object: { ...EVENT.data.object, id: 'sub_2' } },
    });
    await expect(verify({ ...delivery({ body: other }), deduplicate })).resolves.toBeDefined();
  });

  it('claims nothing for a delivery it refuses, and claims again once released', async () => {
    const claimed: string[] = [];
    const deduplicate = {
      claim: (key: string) => (claimed.includes(key) ? false : (claimed.push(key), true)),
      release: (key: string) => claimed.splice(claimed.indexOf(key), 1),
    };
    await expectRefused(
      verify({ ...delivery({ secret: 'whsec_other' }), deduplicate }),
      'signature_mismatch',
    );
    await expectRefused(
      verify({ ...delivery(), eventTypes: ['payout.paid'], deduplicate }),
      'unexpected_event_type',
    );
    expect(claimed).toEqual([]);
    const { deduplicationKey } = await verify({ ...delivery(), deduplicate });
    expect(claimed).toEqual([deduplicationKey]);
    void deduplicate.release(deduplicationKey);
    await expect(verify({ ...delivery(), deduplicate })).resolves.toBeDefined();
  });

  it('memoryDeduplication forgets the oldest keys beyond its bound', () => {
    const store = memoryDeduplication(2);
    expect([store.claim('a'), store.claim('b'), store.claim('a')]).toEqual([true, true, false]);
    expect(store.claim('c')).toBe(true);
    expect(store.claim('a')).toBe(true);
    expect(() => memoryDeduplication(0)).toThrow(RangeError);
  });
});

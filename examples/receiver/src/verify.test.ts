import { sampleEvent } from './sampleEvent';
import { deliveryHeaders, signDelivery } from './sign';
import { type Verdict, type VerifyOptions, verifyDelivery } from './verify';

const SECRET = 'whsec_3fJ8kL2mN9pQ4rS7tU1vW6xY0zA5bC';
const NOW = new Date('2026-11-22T10:00:05Z');
const NOW_S = NOW.getTime() / 1000;
const ALL = ['submission.approved', 'submission.rejected', 'payout.paid', 'campaign.settled'];

function delivery(
  overrides: { body?: string; timestamp?: number; secret?: string; type?: string } = {},
) {
  const body = overrides.body ?? JSON.stringify(sampleEvent());
  const headers = deliveryHeaders({
    secret: overrides.secret ?? SECRET,
    body,
    type: overrides.type ?? 'submission.approved',
    attempt: 1,
    timestamp: overrides.timestamp ?? NOW_S,
  });
  return { headers, rawBody: body };
}

function verify(
  input: Partial<VerifyOptions> & Pick<VerifyOptions, 'headers' | 'rawBody'>,
): Promise<Verdict> {
  return verifyDelivery({ secret: SECRET, now: NOW, acceptedTypes: ALL, ...input });
}

describe('verifyDelivery', () => {
  it('accepts a correctly signed delivery and returns the parsed event and attempt', async () => {
    const verdict = await verify(delivery());
    expect(verdict).toEqual({
      ok: true,
      event: sampleEvent(),
      attempt: 1,
      timestamp: NOW_S,
      secretIndex: 0,
    });
  });

  it('accepts the raw body as a Buffer and headers in any letter case', async () => {
    const { headers, rawBody } = delivery();
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect((await verify({ headers: lower, rawBody: Buffer.from(rawBody) })).ok).toBe(true);
  });

  it('refuses a signature made with another secret', async () => {
    const verdict = await verify(delivery({ secret: 'whsec_someoneElse0000000000000000' }));
    expect(verdict).toMatchObject({ ok: false, status: 401, reason: 'signature_mismatch' });
  });

  it('refuses a body changed by one byte after signing', async () => {
    const { headers, rawBody } = delivery();
    const changed = rawBody.replace('"approved"}', '"approvee"}');
    expect(changed).not.toBe(rawBody);
    expect(await verify({ headers, rawBody: changed })).toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it('refuses a body re-serialised with different whitespace (the raw bytes are signed)', async () => {
    const { headers, rawBody } = delivery();
    const pretty = JSON.stringify(JSON.parse(rawBody), null, 2);
    expect(await verify({ headers, rawBody: pretty })).toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it.each([
    ['301 s old', -301, false],
    ['301 s ahead', 301, false],
    ['299 s old', -299, true],
    ['299 s ahead', 299, true],
    ['exactly 300 s old', -300, true],
  ])('judges a timestamp %s', async (_label, offset, accepted) => {
    const verdict = await verify(delivery({ timestamp: NOW_S + offset }));
    if (accepted) expect(verdict.ok).toBe(true);
    else
      expect(verdict).toMatchObject({
        ok: false,
        status: 401,
        reason: offset < 0 ? 'timestamp_too_old' : 'timestamp_in_future',
      });
  });

  it('checks the window before the signature, so a stale replay is stale even when authentic', async () => {
    expect(await verify(delivery({ timestamp: NOW_S - 3600 }))).toMatchObject({
      reason: 'timestamp_too_old',
    });
  });

  it.each(['X-Service-Event', 'X-Service-Timestamp', 'X-Service-Signature', 'X-Service-Attempt'])(
    'refuses a delivery without %s',
    async (name) => {
      const { headers, rawBody } = delivery();
      const { [name]: _dropped, ...rest } = headers;
      const verdict = await verify({ headers: rest, rawBody });
      expect(verdict).toMatchObject({ ok: false, status: 400, reason: 'missing_header' });
      expect(!verdict.ok && verdict.message).toContain(name.toLowerCase());
    },
  );

  it.each([
    ['X-Service-Event', 'submission approved'],
    ['X-Service-Timestamp', '1795000000.5'],
    ['X-Service-Timestamp', 'yesterday'],
    ['X-Service-Timestamp', '-1795000000'],
    ['X-Service-Signature', 'a'.repeat(64)],
    ['X-Service-Signature', `sha1=${'a'.repeat(64)}`],
    ['X-Service-Signature', `sha256=${'a'.repeat(63)}`],
    ['X-Service-Signature', `sha256=${'a'.repeat(66)}`],
    ['X-Service-Signature', `sha256=${'g'.repeat(64)}`],
    ['X-Service-Attempt', '0'],
    ['X-Service-Attempt', 'two'],
  ])('refuses a malformed %s (%s) without throwing', async (name, value) => {
    const { headers, rawBody } = delivery();
    const verdict = await verify({ headers: { ...headers, [name]: value }, rawBody });
    expect(verdict).toMatchObject({ ok: false, status: 400, reason: 'malformed_header' });
  });

  it('refuses a header sent twice', async () => {
    const { headers, rawBody } = delivery();
    const sig = headers['X-Service-Signature']!;
    const verdict = await verify({
      headers: { ...headers, 'X-Service-Signature': [sig, sig] },
      rawBody,
    });
    expect(verdict).toMatchObject({ reason: 'malformed_header' });
  });

  it('refuses an event type the endpoint did not select (authentic but unwanted: 422)', async () => {
    const verdict = await verify({ ...delivery(), acceptedTypes: ['payout.paid'] });
    expect(verdict).toMatchObject({ ok: false, status: 422, reason: 'unexpected_event_type' });
  });

  it('refuses an unknown type even when configured, as unselected rather than malformed', async () => {
    const body = JSON.stringify(sampleEvent({ type: 'submission.created' as 'payout.paid' }));
    const verdict = await verify({
      ...delivery({ body, type: 'submission.created' }),
      acceptedTypes: [...ALL, 'submission.created'],
    });
    expect(verdict).toMatchObject({ status: 422, reason: 'unexpected_event_type' });
  });

  it('refuses a delivery whose X-Service-Event differs from the signed body type', async () => {
    const verdict = await verify(delivery({ type: 'payout.paid' }));
    expect(verdict).toMatchObject({ ok: false, status: 400, reason: 'malformed_header' });
  });

  it.each([
    ['not JSON', '{"id":'],
    ['a JSON array', '[]'],
    ['no data.object', JSON.stringify({ ...sampleEvent(), data: {} })],
    ['a record without id', JSON.stringify(sampleEvent({ object: { id: 7 } }))],
    ['test not a boolean', JSON.stringify({ ...sampleEvent(), test: 'no' })],
  ])('refuses a signed body that is %s as malformed_body', async (_label, body) => {
    const verdict = await verify(delivery({ body }));
    expect(verdict).toMatchObject({ ok: false, status: 400, reason: 'malformed_body' });
  });

  it('accepts either secret while rotating, and refuses once the old one is dropped', async () => {
    const OLD = 'whsec_old0000000000000000000000000';
    const NEW = 'whsec_new1111111111111111111111111';
    const signedWithOld = delivery({ secret: OLD });
    const signedWithNew = delivery({ secret: NEW });
    expect(await verify({ ...signedWithOld, secret: [NEW, OLD] })).toMatchObject({
      ok: true,
      secretIndex: 1,
    });
    expect(await verify({ ...signedWithNew, secret: [NEW, OLD] })).toMatchObject({
      ok: true,
      secretIndex: 0,
    });
    expect(await verify({ ...signedWithOld, secret: [NEW] })).toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it('refuses everything when no secret is configured', async () => {
    expect(await verify({ ...delivery(), secret: [] })).toMatchObject({
      status: 500,
      reason: 'no_secret',
    });
  });
});

describe('signDelivery', () => {
  it('matches an independently computed HMAC over "<timestamp>.<body>"', () => {
    // Known answer computed with: printf '1795000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
    const signed = signDelivery('whsec_test', '{"a":1}', 1795000000);
    expect(signed).toEqual({
      'X-Service-Timestamp': '1795000000',
      'X-Service-Signature':
        'sha256=14cdf372534acd098c83cbb3a5b7081138ef9e1e2ce9f43221f2a73884581201',
    });
  });
});

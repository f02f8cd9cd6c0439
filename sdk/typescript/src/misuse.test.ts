// TypeErrors for JavaScript callers' misuse that the types would have caught.
import { BrandRecords } from './client';
import { fetchStub, pageBody } from './testing/fetchStub';
import { verifyAuditStreamDelivery } from './webhooks/verifyAuditStream';
import { verifyWebhookDelivery } from './webhooks/verifyWebhook';
import { FROM_OLDEST } from './events/followCheckpoint';

function client() {
  const stub = fetchStub(() => ({ status: 200, body: { ...pageBody('x', []), next_after: 0 } }));
  return {
    client: new BrandRecords({ apiKey: 'bk_live_x', baseUrl: 'https://a.test', fetch: stub.fetch }),
    requests: stub.requests,
  };
}

/** Rejects (or throws) a TypeError whose message matches `pattern`. */
async function expectTypeError(call: () => unknown, pattern: RegExp): Promise<void> {
  let error: unknown;
  try {
    await call();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(TypeError);
  expect((error as Error).message).toMatch(pattern);
}

describe('misuse a JavaScript caller can make is a TypeError naming the option', () => {
  it('new BrandRecords() and new BrandRecords(null)', async () => {
    const Ctor = BrandRecords as unknown as new (o?: unknown) => BrandRecords;
    await expectTypeError(() => new Ctor(), /BrandRecords: options/);
    await expectTypeError(() => new Ctor(null), /BrandRecords: options/);
  });

  it('an invalid Date as since or until', async () => {
    const { client: c, requests } = client();
    const bad = new Date('x');
    await expectTypeError(() => c.campaigns.list({ since: bad }), /since/);
    await expectTypeError(() => c.campaigns.all({ since: bad }).next(), /since/);
    await expectTypeError(() => c.events.list({ since: bad }), /since/);
    await expectTypeError(() => c.events.list({ until: bad }), /until/);
    expect(requests).toHaveLength(0);
  });

  it('events types as a string instead of an array', async () => {
    const { client: c } = client();
    const types = 'payout.paid' as never;
    await expectTypeError(() => c.events.list({ types }), /events\.list: types must be an array/);
    await expectTypeError(
      () =>
        c.events.follow({
          from: FROM_OLDEST,
          types,
          onEvent: () => undefined,
          onCheckpoint: () => undefined,
        }),
      /events\.follow: types must be an array/,
    );
  });

  it('a signal that is not an AbortSignal', async () => {
    const { client: c, requests } = client();
    const signal = 'x' as never;
    await expectTypeError(() => c.links.list({ signal }), /signal must be an AbortSignal/);
    await expectTypeError(
      () => c.links.retrieve('l_1', { signal }),
      /signal must be an AbortSignal/,
    );
    await expectTypeError(() => c.events.list({ signal }), /signal must be an AbortSignal/);
    await expectTypeError(
      () =>
        c.events.follow({
          from: FROM_OLDEST,
          signal,
          onEvent: () => undefined,
          onCheckpoint: () => undefined,
        }),
      /events\.follow: signal must be an AbortSignal/,
    );
    expect(requests).toHaveLength(0);
  });

  it('verifyWebhookDelivery() / (null) / headers: null', async () => {
    const verify = verifyWebhookDelivery as unknown as (o?: unknown) => Promise<unknown>;
    await expectTypeError(() => verify(), /verifyWebhook: options/);
    await expectTypeError(() => verify(null), /verifyWebhook: options/);
    await expectTypeError(
      () =>
        verify({ rawBody: '{}', headers: null, secret: 'whsec_x', eventTypes: ['payout.paid'] }),
      /verifyWebhook: headers/,
    );
    const audit = verifyAuditStreamDelivery as unknown as (o?: unknown) => Promise<unknown>;
    await expectTypeError(() => audit(), /verifyAuditStreamDelivery: options/);
    await expectTypeError(
      () => audit({ rawBody: '', headers: undefined, secret: 'whsec_x' }),
      /verifyAuditStreamDelivery: headers/,
    );
  });
});

import { NotFoundError } from '../errors/codeErrors';
import { errorBody } from '../testing/fetchStub';
import { testTransport } from '../testing/testTransport';
import { RecordsResource } from './recordsResource';

const PAYOUT = {
  id: 'po_3kTMd9Q0bXh7RzL2aP1c',
  campaign_id: 'cmp_8QeWd1LzR0aV5nT2mXy7',
  submission_id: null,
  creator_handle: 'mika.creates',
  amount: 250000,
  currency: 'PHP',
  method: 'gcash',
  status: 'paid',
  failure_reason: null,
  created_at: '2026-11-02T08:15:42.123456Z',
  updated_at: '2026-11-03T01:02:03.000001Z',
  paid_at: '2026-11-03T01:02:03.000001Z',
};

describe('RecordsResource.retrieve', () => {
  it('GETs /api/v1/{resource}/{id} and answers the record with a non-enumerable meta', async () => {
    const { transport, requests } = testTransport([
      { status: 200, body: PAYOUT, headers: { 'x-request-id': 'req_1', etag: '"abc"' } },
    ]);
    const payout = await new RecordsResource(transport, 'payouts').retrieve(PAYOUT.id);
    expect(requests[0]!.method).toBe('GET');
    expect(requests[0]!.url.pathname).toBe(`/api/v1/payouts/${PAYOUT.id}`);
    expect(requests[0]!.url.search).toBe('');
    expect(payout.status).toBe('paid');
    expect(payout.meta).toMatchObject({ status: 200, requestId: 'req_1', etag: '"abc"' });
    expect(JSON.parse(JSON.stringify(payout))).toEqual(PAYOUT);
    expect(Object.keys(payout)).toEqual(Object.keys(PAYOUT));
  });

  it('percent-encodes the id, so no id reaches another path', async () => {
    const { transport, requests } = testTransport([
      { status: 400, body: errorBody('invalid_parameter', 'id must be a record id') },
    ]);
    await expect(
      new RecordsResource(transport, 'payouts').retrieve('../campaigns?limit=1'),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });
    expect(requests[0]!.url.pathname).toBe('/api/v1/payouts/..%2Fcampaigns%3Flimit%3D1');
    expect(requests[0]!.url.search).toBe('');
  });

  it('throws NotFoundError for a 404 not_found, without retrying', async () => {
    const { transport, requests } = testTransport([
      {
        status: 404,
        body: errorBody('not_found', 'No payout with this id is visible to this key.'),
      },
    ]);
    const error = await new RecordsResource(transport, 'payouts')
      .retrieve('po_missing')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'not_found', status: 404 });
    expect(requests).toHaveLength(1);
  });

  it('retries a 503 as a page is retried (a read is idempotent)', async () => {
    const { transport, requests } = testTransport([
      {
        status: 503,
        body: errorBody('service_unavailable', 'later'),
        headers: { 'retry-after': '1' },
      },
      { status: 200, body: PAYOUT },
    ]);
    const payout = await new RecordsResource(transport, 'payouts').retrieve(PAYOUT.id);
    expect(payout.id).toBe(PAYOUT.id);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.url.pathname)).toEqual([
      `/api/v1/payouts/${PAYOUT.id}`,
      `/api/v1/payouts/${PAYOUT.id}`,
    ]);
  });

  it.each([[''], [undefined as unknown as string], [42 as unknown as string]])(
    'refuses the id %p before any request',
    async (id) => {
      const { transport, requests } = testTransport([]);
      await expect(new RecordsResource(transport, 'payouts').retrieve(id)).rejects.toThrow(
        TypeError,
      );
      expect(requests).toHaveLength(0);
    },
  );
});

import { newId } from '@brand/shared/ids';
import { RESOURCES } from '@brand/shared/resources';
import {
  makeBrandWithKey,
  makeRecords,
  startStack,
  type BrandWithKey,
  type Stack,
  headerOf,
  sendRaw,
  type RawAnswer,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import { comparable } from '../support/rawExchange';

// GET /api/v1/{resource}/{id} is no existence oracle. The key alone selects the brand; another
// brand's id, an id that exists nowhere and an id of another resource get the same 404 not_found,
// byte for byte but for the request id (their timing: records.retrieve.timing.test.ts). Every
// refusal is a 4xx of the one error table, and a record counts against the brand's budget like a
// page.

let stack: Stack;
let api: ApiClient;
let mine: BrandWithKey;
let theirs: BrandWithKey;
const theirIds: Record<string, string> = {};
const myIds: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  api = new ApiClient(stack.gateway.url);
  mine = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  theirs = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  for (const resource of RESOURCES) {
    const [own] = await makeRecords(stack.db.pool, mine.brand.id, resource, 1);
    const [other] = await makeRecords(stack.db.pool, theirs.brand.id, resource, 1);
    myIds[resource] = own!.id;
    theirIds[resource] = other!.id;
  }
});

afterAll(() => stack?.close());

const ID_KINDS = {
  campaigns: 'campaign',
  submissions: 'submission',
  payouts: 'payout',
  deposits: 'deposit',
  conversions: 'conversion',
  links: 'link',
} as const;

function get(path: string, key = mine.secret): Promise<RawAnswer> {
  return sendRaw(stack.gateway.url, 'GET', path, { authorization: `Bearer ${key}` });
}

describe('one record by id: no existence oracle', () => {
  it.each(RESOURCES)(
    "%s: another brand's id, an id that exists nowhere and another resource's id answer the same 404, byte for byte but for the request id",
    async (resource) => {
      const other = theirIds[resource]!;
      // the id is real: its own brand reads it
      expect((await get(`/api/v1/${resource}/${other}`, theirs.secret)).status).toBe(200);
      const foreign = await get(`/api/v1/${resource}/${other}`);
      const nowhere = await get(`/api/v1/${resource}/${newId(ID_KINDS[resource])}`);
      const elsewhere = await get(
        `/api/v1/${resource}/${resource === 'payouts' ? myIds.campaigns : myIds.payouts}`,
      );
      expect(foreign.status).toBe(404);
      const body = JSON.parse(foreign.body) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('not_found');
      expect(foreign.body).not.toContain(other);
      expect(comparable(nowhere)).toEqual(comparable(foreign));
      expect(comparable(elsewhere)).toEqual(comparable(foreign));
      expect(headerOf(foreign, 'etag')).toBeUndefined();
      // and through the checked client: the 404 is the documented one
      const checked = await api.get(`/api/v1/${resource}/${other}`, { key: mine.secret });
      expect(checked.status).toBe(404);
    },
  );

  it("no parameter switches the brand: a query is refused, and the key's brand is never left", async () => {
    for (const query of ['brand_id=' + theirs.brand.id, 'brand=' + theirs.brand.id]) {
      const res = await api.get(`/api/v1/payouts/${theirIds.payouts}?${query}`, {
        key: mine.secret,
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_parameter' } });
    }
  });
});

describe('refusals: 4xx of the one error table, never a 5xx', () => {
  it.each([
    ['an id over 64 characters', `/api/v1/payouts/po_${'a'.repeat(62)}`, 400, 'invalid_parameter'],
    [
      'an id of 10,000 characters',
      `/api/v1/payouts/po_${'a'.repeat(10_000)}`,
      400,
      'invalid_parameter',
    ],
    ['a dot in the id', '/api/v1/payouts/po_abc.def', 400, 'invalid_parameter'],
    ['a quote in the id', "/api/v1/payouts/po_x'%20or%201=1", 400, 'invalid_parameter'],
    ['a NUL in the id', '/api/v1/payouts/po_x%00', 400, 'invalid_parameter'],
    ['non-ASCII in the id', '/api/v1/payouts/po_%C3%A4', 400, 'invalid_parameter'],
    ['broken percent-encoding', '/api/v1/payouts/po_%ZZ', 400, 'malformed_request'],
    ['a list parameter', `/api/v1/payouts/po_abc?limit=1`, 400, 'invalid_parameter'],
    ['an unknown parameter', `/api/v1/payouts/po_abc?expand=campaign`, 400, 'invalid_parameter'],
    ['an unknown resource', '/api/v1/payments/po_abc', 404, 'unknown_resource'],
    ['a resource in another case', '/api/v1/Payouts/po_abc', 404, 'unknown_resource'],
    ['a prefix without a tail', '/api/v1/payouts/po_', 404, 'not_found'],
  ])('%s: %s is %i %s', async (_what, path, status, code) => {
    const res = await get(path);
    expect(res.status).toBe(status);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code } });
    expect(res.body.length).toBeLessThan(600);
  });

  it('checks the key first: without one every record path is 401, with a bad one 401 invalid_key', async () => {
    const anonymous = await api.get(`/api/v1/payouts/${myIds.payouts}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: { code: 'missing_key' } });
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await api.get('/api/v1/nope/po_abc')).status).toBe(401);
    const bad = await api.get(`/api/v1/payouts/${myIds.payouts}`, {
      key: `bk_live_${'x'.repeat(32)}`,
    });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_key' } });
  });

  it('answers other methods 405 with Allow: GET, HEAD', async () => {
    const res = await sendRaw(stack.gateway.url, 'DELETE', `/api/v1/payouts/${myIds.payouts}`, {
      authorization: `Bearer ${mine.secret}`,
    });
    expect(res.status).toBe(405);
    expect(headerOf(res, 'allow')).toBe('GET, HEAD');
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'method_not_allowed' } });
  });

  it('leaves the sub-paths of campaign plans and of the events feed to their own endpoints', async () => {
    // not this endpoint's: the unmatched-route answer, 404 with a key (401 without one)
    for (const path of ['/api/v1/events/evt_abc', '/api/v1/campaign-plans/pln_abc']) {
      const res = await sendRaw(stack.gateway.url, 'GET', path, {
        authorization: `Bearer ${mine.secret}`,
      });
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({
        error: { code: 'not_found', message: expect.stringMatching(/^No route for GET/) as string },
      });
    }
  });
});

describe('the rate limit', () => {
  it("counts every record request against the brand's budget, shared with the lists, then 429", async () => {
    const plus = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const [payout] = await makeRecords(stack.db.pool, plus.brand.id, 'payouts', 1);
    const remaining = (a: RawAnswer) => Number(/r=(\d+)/.exec(headerOf(a, 'ratelimit')!)![1]);
    const first = await get(`/api/v1/payouts/${payout!.id}`, plus.secret);
    expect(first.status).toBe(200);
    expect(headerOf(first, 'ratelimit-policy')).toBe('"brand";q=60;w=60');
    const missing = await get(`/api/v1/payouts/${newId('payout')}`, plus.secret);
    expect(missing.status).toBe(404);
    expect(remaining(missing)).toBe(remaining(first) - 1);
    const page = await get('/api/v1/payouts', plus.secret);
    expect(remaining(page)).toBe(remaining(first) - 2);
    let last: RawAnswer = page;
    for (let i = 0; i < 60 && last.status !== 429; i++)
      last = await get(`/api/v1/payouts/${payout!.id}`, plus.secret);
    expect(last.status).toBe(429);
    expect(JSON.parse(last.body)).toMatchObject({ error: { code: 'rate_limited' } });
    expect(Number(headerOf(last, 'retry-after'))).toBeGreaterThan(0);
  });
});

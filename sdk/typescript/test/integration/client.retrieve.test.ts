// client.<resource>.retrieve(id) against the running system (records service + gateway on a fresh
// database): each resource's typed record, exactly its list item; the typed NotFoundError for
// another brand's id and for an id that exists nowhere alike.
import {
  BrandRecords,
  InvalidParameterError,
  NotFoundError,
  RESOURCE_NAMES,
  type ResourceName,
} from '@brand-records/client';
import { newId } from '@brand/shared/ids';
import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';

let stack: Stack;
let client: BrandRecords;
let other: BrandRecords;

beforeAll(async () => {
  stack = await startStack();
  const mine = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const theirs = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  client = new BrandRecords({ apiKey: mine.secret, baseUrl: stack.gateway.url });
  other = new BrandRecords({ apiKey: theirs.secret, baseUrl: stack.gateway.url });
  for (const resource of RESOURCE_NAMES) {
    await makeRecords(stack.db.pool, mine.brand.id, resource, 2);
    await makeRecords(stack.db.pool, theirs.brand.id, resource, 1);
  }
});
afterAll(async () => {
  await stack?.close();
});

const ID_KINDS = {
  campaigns: 'campaign',
  submissions: 'submission',
  payouts: 'payout',
  deposits: 'deposit',
  conversions: 'conversion',
  links: 'link',
} as const satisfies Record<ResourceName, string>;

describe('retrieve', () => {
  it.each(RESOURCE_NAMES)(
    '%s: the typed record, exactly its list item, with meta',
    async (resource) => {
      const page = await client[resource].list({ limit: 200 });
      for (const listed of page.data) {
        const record = await client[resource].retrieve(listed.id);
        expect({ ...record }).toEqual(listed);
        expect(JSON.stringify(record)).toBe(JSON.stringify(listed));
        expect(record.meta.status).toBe(200);
        expect(record.meta.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
        expect(record.meta.rateLimit).toMatchObject({ policy: 'brand', limit: 240 });
      }
    },
  );

  it('types the record: a payout has its documented status', async () => {
    const [listed] = (await client.payouts.list({ limit: 1 })).data;
    const payout = await client.payouts.retrieve(listed!.id);
    expect(['pending', 'processing', 'paid', 'failed']).toContain(payout.status);
    expect(payout.currency).toBe('PHP');
  });

  it.each(RESOURCE_NAMES)(
    "%s: another brand's id and an id that exists nowhere throw the same NotFoundError",
    async (resource) => {
      const [theirs] = (await other[resource].list({ limit: 1 })).data;
      const foreign = await client[resource].retrieve(theirs!.id).catch((e: unknown) => e);
      const nowhere = await client[resource]
        .retrieve(newId(ID_KINDS[resource]))
        .catch((e: unknown) => e);
      for (const error of [foreign, nowhere]) {
        expect(error).toBeInstanceOf(NotFoundError);
        expect(error).toMatchObject({ code: 'not_found', status: 404 });
      }
      expect((foreign as NotFoundError).message).toBe((nowhere as NotFoundError).message);
    },
  );

  it('throws InvalidParameterError for an id that cannot be one', async () => {
    const error = await client.links.retrieve(`lnk_${'x'.repeat(100)}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect(error).toMatchObject({ code: 'invalid_parameter', status: 400 });
  });
});

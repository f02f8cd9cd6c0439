import { BrandRecords, type BrandRecordsOptions } from './client';
import { fetchStub, pageBody } from './testing/fetchStub';

const base = { apiKey: 'bk_live_x', baseUrl: 'https://api.example.test' };
const make = (over: Partial<BrandRecordsOptions>) => () => new BrandRecords({ ...base, ...over });

describe('BrandRecords: options that feed a timer', () => {
  it.each([3e9, 2 ** 31, Infinity, NaN, 0, -1])('refuses timeoutMs %p', (timeoutMs) => {
    expect(make({ timeoutMs })).toThrow(TypeError);
    expect(make({ timeoutMs })).toThrow(/timeoutMs/);
  });

  it('accepts timeoutMs up to 2^31-1 ms, the longest timer Node keeps', async () => {
    const stub = fetchStub([{ status: 200, body: pageBody('links', []) }]);
    const client = new BrandRecords({ ...base, fetch: stub.fetch, timeoutMs: 2 ** 31 - 1 });
    await expect(client.links.list()).resolves.toMatchObject({ count: 0 });
  });

  it.each<[string, Record<string, number>]>([
    ['baseDelayMs', { baseDelayMs: -5 }],
    ['baseDelayMs', { baseDelayMs: NaN }],
    ['baseDelayMs', { baseDelayMs: 2 ** 31 }],
    ['maxDelayMs', { maxDelayMs: -1 }],
    ['maxDelayMs', { maxDelayMs: Infinity }],
    ['maxDelayMs', { maxDelayMs: 3e9 }],
    ['maxRetryAfterSeconds', { maxRetryAfterSeconds: -1 }],
    ['maxRetryAfterSeconds', { maxRetryAfterSeconds: NaN }],
    ['maxRetryAfterSeconds', { maxRetryAfterSeconds: 3e6 }],
  ])('refuses retry.%s %p', (name, retry) => {
    expect(make({ retry })).toThrow(TypeError);
    expect(make({ retry })).toThrow(new RegExp(`retry\\.${name}`));
  });

  it('refuses a retry that is not an object', () => {
    expect(make({ retry: 5 as never })).toThrow(/retry/);
  });

  it('accepts zero delays and the largest delays a timer keeps', () => {
    expect(
      make({ retry: { baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterSeconds: 0 } }),
    ).not.toThrow();
    expect(
      make({
        retry: {
          baseDelayMs: 2 ** 31 - 1,
          maxDelayMs: 2 ** 31 - 1,
          maxRetryAfterSeconds: 2_147_483,
        },
      }),
    ).not.toThrow();
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BrandRecords } from './client';
import { InvalidKeyError } from './errors/codeErrors';
import { errorBody, fetchStub, pageBody } from './testing/fetchStub';
import { VERSION } from './version';

const base = { apiKey: 'bk_live_x', baseUrl: 'https://api.example.test' };

describe('BrandRecords', () => {
  it('has the six resources and campaign plans, each calling its own path', async () => {
    const stub = fetchStub(() => ({ status: 200, body: pageBody('x', []) }));
    const client = new BrandRecords({
      ...base,
      baseUrl: 'https://api.example.test/v/',
      fetch: stub.fetch,
    });
    for (const resource of [
      'campaigns',
      'submissions',
      'payouts',
      'deposits',
      'conversions',
      'links',
    ] as const) {
      await client[resource].list({ limit: 1 });
    }
    expect(stub.requests.map((r) => r.url.pathname)).toEqual([
      '/v/api/v1/campaigns',
      '/v/api/v1/submissions',
      '/v/api/v1/payouts',
      '/v/api/v1/deposits',
      '/v/api/v1/conversions',
      '/v/api/v1/links',
    ]);
    expect(stub.requests[0]!.headers.get('user-agent')).toBe(
      `brand-records-client-typescript/${VERSION}`,
    );
    expect(typeof client.campaignPlans.prepare).toBe('function');
  });

  it('throws typed errors from list', async () => {
    const stub = fetchStub([{ status: 401, body: errorBody('invalid_key') }]);
    const client = new BrandRecords({ ...base, fetch: stub.fetch });
    await expect(client.payouts.list()).rejects.toBeInstanceOf(InvalidKeyError);
  });

  it('uses maxRetries', async () => {
    const stub = fetchStub([{ throws: new TypeError('fetch failed') }]);
    const client = new BrandRecords({
      ...base,
      fetch: stub.fetch,
      maxRetries: 1,
      retry: { baseDelayMs: 1 },
    });
    await expect(client.links.list()).rejects.toThrow('fetch failed');
    expect(stub.requests).toHaveLength(2);
  });

  it.each([
    [{ apiKey: '' }, 'apiKey'],
    [{ baseUrl: 'api.example.test' }, 'baseUrl'],
    [{ baseUrl: 'ftp://api.example.test' }, 'baseUrl'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ maxRetries: 1.5 }, 'maxRetries'],
  ])('refuses bad options %p', (over, word) => {
    expect(() => new BrandRecords({ ...base, ...over })).toThrow(word);
  });

  it('VERSION equals the package version', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });
});

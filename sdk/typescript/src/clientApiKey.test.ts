import { BrandRecords } from './client';
import { fetchStub, pageBody } from './testing/fetchStub';

const SECRET_PART = 'Zq9SecretTail';

function refusal(apiKey: string): TypeError {
  try {
    new BrandRecords({ apiKey, baseUrl: 'https://api.example.test' });
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return error as TypeError;
  }
  throw new Error('expected a TypeError');
}

describe('BrandRecords: an API key a header cannot carry is refused at construction', () => {
  it.each<[string, string, RegExp]>([
    ['a trailing line break', `bk_live_${SECRET_PART}\n`, /control character/],
    ['a carriage return inside', `bk_live_${SECRET_PART}\r\nX-Evil: 1`, /control character/],
    ['a NUL', `bk_live_${SECRET_PART}\u0000`, /control character/],
    ['a DEL', `bk_live_${SECRET_PART}\u007f`, /control character/],
    ['a tab', `bk_live_${SECRET_PART}\t`, /control character/],
    ['a space', `bk_live_ ${SECRET_PART}`, /space/],
    ['a non-ASCII character', `bk_live_${SECRET_PART}é`, /non-ASCII/],
    ['an emoji', `bk_live_${SECRET_PART}🔑`, /non-ASCII/],
  ])('%s', (_what, key, reason) => {
    const error = refusal(key);
    expect(error.message).toMatch(/apiKey/);
    expect(error.message).toMatch(reason);
    // the key itself is never printed: at most its prefix
    expect(error.message).not.toContain(SECRET_PART);
  });

  it('names no prefix it does not recognise', () => {
    const error = refusal(`${SECRET_PART}\n`);
    expect(error.message).not.toContain(SECRET_PART.slice(0, 4));
  });

  it('keeps accepting printable keys', async () => {
    const stub = fetchStub([{ status: 200, body: pageBody('links', []) }]);
    const client = new BrandRecords({
      apiKey: 'bk_test_AZaz09-._~+/=',
      baseUrl: 'https://api.example.test',
      fetch: stub.fetch,
    });
    await client.links.list();
    expect(stub.requests[0]!.headers.get('authorization')).toBe('Bearer bk_test_AZaz09-._~+/=');
  });
});

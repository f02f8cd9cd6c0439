import { parseQueryString } from './queryString';

describe('parseQueryString', () => {
  it('reads every parameter, however many pieces come before it', () => {
    // node:querystring's default stops at 1,000 pieces, empty ones included
    expect(parseQueryString(`${'&'.repeat(1000)}limit=0`)).toEqual({ limit: '0' });
    const many = Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&');
    expect(Object.keys(parseQueryString(many))).toHaveLength(1500);
  });

  it('reads as node:querystring does otherwise: repeats as arrays, escapes and + decoded', () => {
    expect(parseQueryString('limit=1&limit=2')).toEqual({ limit: ['1', '2'] });
    expect(parseQueryString('since=2026-01-01T00:00:00%2B08:00&a+b=c+d')).toEqual({
      since: '2026-01-01T00:00:00+08:00',
      'a b': 'c d',
    });
    expect(parseQueryString('')).toEqual({});
  });
});

import { listEtag } from './conditional';

describe('listEtag', () => {
  const tag = (params: Parameters<typeof listEtag>[2], version = '7', brand = 'br_1') =>
    listEtag(brand, 'submissions', params, version);

  it('is a strong, quoted tag', () => {
    expect(tag({})).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('names the normalised query: the default limit and limit=50 are one query', () => {
    expect(tag({})).toBe(tag({ limit: 50 }));
    expect(tag({ since: '2026-11-01T08:00:00+08:00' })).toBe(
      tag({ since: '2026-11-01T00:00:00.000000Z' }),
    );
  });

  it('changes with the version, the brand, the resource, the limit, the cursor and since', () => {
    const base = tag({ limit: 10 });
    expect(
      new Set([
        base,
        tag({ limit: 10 }, '8'),
        tag({ limit: 10 }, '7', 'br_2'),
        listEtag('br_1', 'payouts', { limit: 10 }, '7'),
        tag({ limit: 11 }),
        tag({ limit: 10, cursor: 'abc.def' }),
        tag({ limit: 10, since: '2026-11-01T00:00:00Z' }),
      ]).size,
    ).toBe(7);
  });
});

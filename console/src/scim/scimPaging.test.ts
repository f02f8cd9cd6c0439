import { SCIMMY } from 'scimmy-routers';
import {
  MAX_FILTERED,
  MAX_PAGE,
  membersLeftOut,
  pageOf,
  readAllBounded,
  rowsForScimmy,
  windowFor,
  type RecordsWindow,
} from './scimPaging';

/** Records' answer to a window of a list (ListScimUsers with start_index set). */
const recordsAnswer = (list: readonly { id: string }[], w: RecordsWindow) => ({
  rows: list.slice(w.start_index - 1, w.start_index - 1 + w.count),
  total: list.length,
});

const listOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i + 1}` }));

describe('windowFor and rowsForScimmy', () => {
  it("make scimmy's own ListResponse answer exactly the page asked for, whatever the page", () => {
    const wrong: unknown[] = [];
    for (let total = 0; total <= 30; total++) {
      const list = listOf(total);
      for (let start = 1; start <= 34; start++) {
        for (let count = 0; count <= 26; count++) {
          const page = { start, count };
          const answer = recordsAnswer(list, windowFor(page));
          const rows = rowsForScimmy(page, answer.rows, answer.total);
          // scimmy's typings want its Schema instances; ListResponse reads plain objects alike.
          const sent = new SCIMMY.Messages.ListResponse(rows as never, {
            startIndex: start,
            count,
            totalResults: answer.total,
          });
          const ids = (sent.Resources as unknown as { id: string }[]).map((r) => r.id).join();
          const expected = list
            .slice(start - 1, start - 1 + count)
            .map((r) => r.id)
            .join();
          const header = [sent.totalResults, sent.startIndex, sent.itemsPerPage].join();
          if (ids !== expected || header !== [total, start, count].join()) {
            wrong.push({ total, start, count, ids, header });
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reads at most 2 × MAX_PAGE + 1 rows for a page, and the page itself past its count', () => {
    expect(windowFor({ start: MAX_PAGE, count: MAX_PAGE })).toEqual({
      start_index: 1,
      count: 2 * MAX_PAGE,
    });
    expect(windowFor({ start: 1, count: 100 })).toEqual({ start_index: 1, count: 100 });
    expect(windowFor({ start: 101, count: 100 })).toEqual({ start_index: 101, count: 100 });
    expect(windowFor({ start: 7, count: 0 })).toEqual({ start_index: 7, count: 0 });
  });
});

describe('pageOf', () => {
  it("takes scimmy's constraints, its default of 20, and caps count at MAX_PAGE", () => {
    expect(pageOf(undefined)).toEqual({ start: 1, count: 20 });
    expect(pageOf({ startIndex: 5 })).toEqual({ start: 5, count: 20 });
    expect(pageOf({ count: 0 })).toEqual({ start: 1, count: 0 });
    expect(pageOf({ startIndex: 3, count: 5_000 })).toEqual({ start: 3, count: MAX_PAGE });
  });

  it('keeps start within the uint32 records takes, whatever startIndex says', () => {
    for (const startIndex of [2 ** 32, 1e10, 1e20, 2 ** 53 + 2]) {
      expect(pageOf({ startIndex, count: 5 })).toEqual({ start: 2 ** 32 - 1, count: 5 });
    }
    expect(pageOf({ startIndex: 2.5 })).toEqual({ start: 2, count: 20 });
  });
});

describe('readAllBounded', () => {
  it('reads a list in windows of the chunk, each row once', async () => {
    const list = listOf(1_234);
    const windows: RecordsWindow[] = [];
    const rows = await readAllBounded(
      (w) => {
        windows.push(w);
        return Promise.resolve(recordsAnswer(list, w));
      },
      500,
      'users',
    );
    expect(rows).toEqual(list);
    expect(windows.map((w) => w.start_index)).toEqual([1, 501, 1_001]);
  });

  it('refuses a list past MAX_FILTERED after reading one window: tooMany', async () => {
    const list = listOf(MAX_FILTERED + 1);
    let reads = 0;
    const read = (w: RecordsWindow) => {
      reads++;
      return Promise.resolve(recordsAnswer(list, w));
    };
    await expect(readAllBounded(read, 500, 'users')).rejects.toMatchObject({
      scimType: 'tooMany',
    });
    expect(reads).toBe(1);
  });

  it('takes every row from an older records, which answers them all and no total', async () => {
    const list = listOf(42);
    const rows = await readAllBounded(
      () => Promise.resolve({ rows: list, total: 0 }),
      20,
      'groups',
    );
    expect(rows).toEqual(list);
  });

  it('keeps a row once when a write between windows shifts the list', async () => {
    const list = listOf(30);
    let reads = 0;
    const rows = await readAllBounded(
      (w) => {
        // After the first window, a row is inserted first: the next windows shift by one.
        if (reads++ === 1) list.unshift({ id: 'r0' });
        return Promise.resolve(recordsAnswer(list, w));
      },
      10,
      'users',
    );
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });
});

describe('membersLeftOut', () => {
  const parsed = (query: Record<string, string>) =>
    new SCIMMY.Resources.Group(query as never).attributes as unknown as Record<string, unknown>[];

  it('is true when the answer names no member: members excluded, or attributes without them', () => {
    const queries: Record<string, string>[] = [
      { excludedAttributes: 'members' },
      { excludedAttributes: 'Members,meta' },
      { excludedAttributes: 'urn:ietf:params:scim:schemas:core:2.0:Group:members' },
      { attributes: 'displayName' },
      { attributes: 'displayName,externalId' },
    ];
    for (const query of queries) {
      expect({ query, out: membersLeftOut(parsed(query)) }).toEqual({ query, out: true });
    }
  });

  it('is false when any of the members is asked for, or nothing is said', () => {
    const queries: Record<string, string>[] = [
      {},
      { attributes: 'displayName,members.value' },
      { attributes: 'members' },
      { excludedAttributes: 'members.display' },
      { excludedAttributes: 'meta' },
      { attributes: 'meta.created' },
    ];
    for (const query of queries) {
      expect({ query, out: membersLeftOut(parsed(query)) }).toEqual({ query, out: false });
    }
  });
});

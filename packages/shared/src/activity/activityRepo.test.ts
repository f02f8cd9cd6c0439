import type { Pool } from '../db/pool';
import { firstCharacters } from '../text';
import { insertActivity, SUMMARY_MAX_CHARACTERS } from './activityRepo';

/** The summary insertActivity stores for `summary` (a fake pool keeps the query's values). */
async function storedSummary(summary: string): Promise<string> {
  const calls: unknown[][] = [];
  const db = {
    query: (_sql: string, values: unknown[]) => {
      calls.push(values);
      return Promise.resolve({ rows: [], rowCount: 1 });
    },
  } as unknown as Pool;
  await insertActivity(db, {
    brandId: 'br_1',
    action: 'plan.cancelled',
    actorMemberId: '',
    actorEmail: 'operator',
    subjectId: 'pln_1',
    summary,
    origin: { clientAddress: '', userAgent: '' },
  });
  const stored = calls[0]?.[6];
  if (typeof stored !== 'string') throw new Error('no summary stored');
  return stored;
}

const hasLoneSurrogate = (s: string) => /\p{Cs}/u.test(s);

describe('activity summary', () => {
  it("keeps a cancelled emoji-titled plan's whole summary, suffix and all", async () => {
    // A valid title at its limit: 200 characters, 399 UTF-16 units.
    const summary = `${'a' + '😀'.repeat(199)} (ugc)`;
    const stored = await storedSummary(summary);
    expect(stored).toBe(summary);
    expect(stored.endsWith(' (ugc)')).toBe(true);
  });

  it('cuts a longer one at 300 characters, never inside a surrogate pair', async () => {
    const stored = await storedSummary('a' + '😀'.repeat(400));
    expect([...stored]).toHaveLength(SUMMARY_MAX_CHARACTERS);
    expect(hasLoneSurrogate(stored)).toBe(false);
    expect(stored).toBe('a' + '😀'.repeat(299));
  });

  it('leaves a summary within the limit as it is', async () => {
    expect(await storedSummary('Plan (ugc)')).toBe('Plan (ugc)');
  });
});

describe('firstCharacters', () => {
  it.each([
    ['', 3, ''],
    ['abc', 3, 'abc'],
    ['abcd', 3, 'abc'],
    ['😀😀😀😀', 3, '😀😀😀'],
    ['a😀b😀', 2, 'a😀'],
    ['ab😀', 2, 'ab'],
  ])('%j cut to %i is %j', (s, max, expected) => {
    expect(firstCharacters(s, max)).toBe(expected);
  });
});

import type { ActivityEntry } from '@brand/proto/activity/v1';
import { decodeActivityCursor, encodeActivityCursor } from './activityCursor';
import { mergedActivityPage, newerFirst, type ActivitySource } from './mergedActivity';

const entry = (id: string, second: number): ActivityEntry => ({
  id,
  brand_id: 'br_1',
  action: 'key.created',
  actor_member_id: '',
  actor_email: 'operator',
  subject_id: '',
  summary: '',
  created_at: `2026-11-25T07:00:${String(second).padStart(2, '0')}.000000Z`,
  client_address: '',
  user_agent: '',
});

const listing = { brandId: 'br_1', filters: {} };

/** A service's ListActivity over a fixed log, honouring page_token and page_size as the real one does. */
function source(log: ActivityEntry[]): ActivitySource & { calls: number } {
  const sorted = [...log].sort(newerFirst);
  const fn = async (req: { page_size: number; page_token: string }) => {
    fn.calls += 1;
    const after = req.page_token ? decodeActivityCursor(listing, req.page_token) : undefined;
    const rest = after ? sorted.filter((e) => newerFirst(e, { ...e, ...after }) > 0) : sorted;
    const entries = rest.slice(0, req.page_size);
    const last = entries.at(-1);
    const token =
      entries.length === req.page_size && last ? encodeActivityCursor(listing, last) : '';
    return Promise.resolve({ entries, next_page_token: token });
  };
  fn.calls = 0;
  return fn;
}

const q = { brand_id: 'br_1', actor: '', action: '', subject_id: '', since: '', until: '' };

describe('mergedActivityPage', () => {
  it('walks three logs page by page with no duplicate and no gap, ties broken by id', async () => {
    const a = Array.from({ length: 7 }, (_, i) => entry(`act_a${i}`, i * 3));
    const b = Array.from({ length: 5 }, (_, i) => entry(`act_b${i}`, i * 3 + 1));
    const c = [entry('act_c0', 0), entry('act_c1', 3), entry('act_c2', 59)];
    const sources = [source(a), source(b), source(c)];
    const seen: string[] = [];
    let cursor = '';
    for (let pages = 0; pages < 10; pages++) {
      const page = await mergedActivityPage(sources, { ...q, cursor, limit: 4 });
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    const expected = [...a, ...b, ...c].sort(newerFirst).map((e) => e.id);
    expect(seen).toEqual(expected);
    expect(seen[0]).toBe('act_c2');
  });

  it('says there is no next page when the last page is exactly full', async () => {
    const page = await mergedActivityPage([source([entry('act_a', 1), entry('act_b', 2)])], {
      ...q,
      cursor: '',
      limit: 2,
    });
    expect(page.entries).toHaveLength(2);
    expect(page.next_cursor).toBe('');
  });
});

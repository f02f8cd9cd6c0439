import type { ActivityEntry } from '@brand/proto/activity/v1';
import { encodeActivityCursor } from './activityCursor';
import { parseActivityFilters } from './activityQuery';
import type { ActivityFilterFields } from './activityTypes';

/** One service's ListActivity, as the console or the CLI calls it for a brand. */
export type ActivitySource = (
  req: { brand_id: string; page_size: number; page_token: string } & ActivityFilterFields,
) => Promise<{ entries: ActivityEntry[]; next_page_token: string }>;

/** Newer first: created_at (RFC 3339 UTC, microseconds, one width: string order is time order), then id. */
export function newerFirst(a: ActivityEntry, b: ActivityEntry): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The three services' logs as one, newest first, from `cursor` on: a k-way merge on
 * (created_at, id), each service read in pages of `pageSize` from its own token, a source
 * refilled before its head is compared (so nothing is skipped or repeated). Each source's
 * memory is one page, whatever the range.
 */
export async function* mergeActivity(
  sources: readonly ActivitySource[],
  query: { brand_id: string; cursor: string; pageSize: number } & ActivityFilterFields,
): AsyncGenerator<ActivityEntry> {
  const { cursor, pageSize, ...rest } = query;
  const state = sources.map(() => ({ buffer: [] as ActivityEntry[], token: cursor, done: false }));
  const fill = async (i: number) => {
    const s = state[i]!;
    const page = await sources[i]!({ ...rest, page_size: pageSize, page_token: s.token });
    s.buffer = page.entries;
    s.token = page.next_page_token;
    s.done = page.next_page_token === '';
  };
  await Promise.all(state.map((_, i) => fill(i)));
  for (;;) {
    let best = -1;
    for (let i = 0; i < state.length; i++) {
      const s = state[i]!;
      if (s.buffer.length === 0 && !s.done) await fill(i);
      const head = s.buffer[0];
      if (head && (best < 0 || newerFirst(head, state[best]!.buffer[0]!) < 0)) best = i;
    }
    if (best < 0) return;
    yield state[best]!.buffer.shift()!;
  }
}

/**
 * One page of the merged log: the newest `limit` entries after `cursor` across the sources
 * (each asked for limit + 1, enough to know whether more follow), and the cursor of the next
 * page (the last entry's position, which every source understands), empty at the end.
 */
export async function mergedActivityPage(
  sources: readonly ActivitySource[],
  query: { brand_id: string; cursor: string; limit: number } & ActivityFilterFields,
): Promise<{ entries: ActivityEntry[]; next_cursor: string }> {
  const { limit, ...rest } = query;
  const entries: ActivityEntry[] = [];
  let more = false;
  for await (const e of mergeActivity(sources, { ...rest, pageSize: limit + 1 })) {
    if (entries.length === limit) {
      more = true;
      break;
    }
    entries.push(e);
  }
  const last = entries.at(-1);
  const listing = { brandId: query.brand_id, filters: parseActivityFilters(query) };
  return { entries, next_cursor: more && last ? encodeActivityCursor(listing, last) : '' };
}

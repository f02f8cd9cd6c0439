/**
 * Where a follower stands, as it stores it: the feed position it reads after, and the ids of
 * the events it already handled past that position (those of the page it is in the middle of).
 * Stored after every event, it lets a follower that stopped anywhere (a crash between two
 * events of a page) resume and hand each event to its callback exactly once: the page is
 * read again from `after` and the events in `handled` are skipped, whatever page size the
 * next run reads with (see checkpointAfterPage). Plain JSON; keep it
 * wherever the integration keeps its own state, ideally in the same transaction as the
 * event's effects.
 */
export interface FollowCheckpoint {
  after: number;
  handled: string[];
}

/** The checkpoint of a follower that has handled nothing: from the oldest event kept. */
export const FROM_OLDEST: FollowCheckpoint = { after: 0, handled: [] };

/** Whether a stored value is a checkpoint (a store that returns junk is refused, not guessed). */
export function isFollowCheckpoint(value: unknown): value is FollowCheckpoint {
  if (typeof value !== 'object' || value === null) return false;
  const { after, handled } = value as Partial<FollowCheckpoint>;
  return (
    Number.isSafeInteger(after) &&
    (after as number) >= 0 &&
    Array.isArray(handled) &&
    handled.every((id) => typeof id === 'string')
  );
}

/**
 * The checkpoint to store at the end of a page read `after=checkpoint.after` (the feed's events
 * carry no position, so the rule goes by the ids a page held):
 * - `after` moves to the page's `next_after`;
 * - a handled id the page held lies at or before `next_after` and is dropped: it is never read
 *   again from there;
 * - a handled id the page did not hold is kept when the page was full: it lies beyond the page
 *   (a checkpoint stored by a run with a larger page, resumed with a smaller one) and must still
 *   be skipped when a later page reaches it;
 * - a page that was not full held every event after `after` that the filters match, so it
 *   held every handled id too; what is left (ids read under other filters) is dropped.
 * So every id in `handled` lies after `after`, for any page size and any restart point, and
 * `handled` never holds more ids than the largest page that stored them.
 */
export function checkpointAfterPage(
  checkpoint: FollowCheckpoint,
  page: { ids: readonly string[]; nextAfter: number; full: boolean },
): FollowCheckpoint {
  if (!page.full) return { after: page.nextAfter, handled: [] };
  const held = new Set(page.ids);
  return {
    after: page.nextAfter,
    handled: checkpoint.handled.filter((id) => !held.has(id)),
  };
}

/** Whether two checkpoints say the same (to store only what changed). */
export function sameCheckpoint(a: FollowCheckpoint, b: FollowCheckpoint): boolean {
  return (
    a.after === b.after &&
    a.handled.length === b.handled.length &&
    a.handled.every((id, i) => id === b.handled[i])
  );
}

/**
 * Where a follower stands, as it stores it: the feed position it reads after, and the ids of
 * the events it already handled past that position (those of the page it is in the middle of).
 * Stored after every event, it lets a follower that stopped anywhere (a crash between two
 * events of a page) resume and hand each event to its callback exactly once: the page is
 * read again from `after` and the events in `handled` are skipped. Plain JSON; keep it
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

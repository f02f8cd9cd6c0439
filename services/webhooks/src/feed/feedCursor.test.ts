import { createHmac } from 'node:crypto';
import { cursorKeys } from '../cursorKeys';
import { decodeFeedCursor, encodeFeedCursor } from './feedCursor';

// The feed's newest-first cursor: position and the walk's recorded expired_through, signed for
// one brand; the shape every cursor had before ("<position>.<mac>") still read, as recorded 0.

const CURRENT = Buffer.alloc(32, 1).toString('base64');
const PREVIOUS = Buffer.alloc(32, 2).toString('base64');
const keys = cursorKeys('events-feed-cursor', CURRENT);

function invalid(fn: () => unknown): void {
  let code: unknown;
  try {
    fn();
  } catch (err) {
    code = (err as { code?: unknown }).code;
  }
  expect(code).toBe('invalid_cursor');
}

/** A cursor as the release before this one issued it (its code, copied). */
function olderRelease(brandId: string, position: number): string {
  const [key] = cursorKeys('events-feed-cursor', CURRENT);
  const mac = createHmac('sha256', key)
    .update(`events\n${brandId}\n${position}`)
    .digest()
    .subarray(0, 12);
  return `${position.toString(36)}.${mac.toString('base64url')}`;
}

it('round-trips a position with the recorded value, in at most 40 characters', () => {
  for (const cursor of [
    { position: 1, expiredThrough: 1 },
    { position: 3, expiredThrough: 4 },
    { position: Number.MAX_SAFE_INTEGER, expiredThrough: Number.MAX_SAFE_INTEGER },
  ]) {
    const text = encodeFeedCursor(keys, 'br_a', cursor);
    expect(text).toMatch(/^[0-9a-z]{1,11}\.[0-9a-z]{1,11}\.[A-Za-z0-9_-]{16}$/);
    expect(text.length).toBeLessThanOrEqual(40);
    expect(decodeFeedCursor(keys, 'br_a', text)).toEqual(cursor);
  }
});

it('writes a cursor with nothing recorded in the older shape, and reads that release’s cursors as recorded 0', () => {
  const text = encodeFeedCursor(keys, 'br_a', { position: 42, expiredThrough: 0 });
  expect(text).toBe(olderRelease('br_a', 42));
  expect(decodeFeedCursor(keys, 'br_a', olderRelease('br_a', 7))).toEqual({
    position: 7,
    expiredThrough: 0,
  });
});

it('refuses an altered cursor: position, recorded value, shape or MAC', () => {
  const text = encodeFeedCursor(keys, 'br_a', { position: 10, expiredThrough: 4 });
  const [position, recorded, mac] = text.split('.') as [string, string, string];
  invalid(() => decodeFeedCursor(keys, 'br_a', `${position}.5.${mac}`)); // a later value
  invalid(() => decodeFeedCursor(keys, 'br_a', `${position}.${mac}`)); // the value dropped
  invalid(() => decodeFeedCursor(keys, 'br_a', `b.${recorded}.${mac}`));
  invalid(() => decodeFeedCursor(keys, 'br_a', `${position}.0.${mac}`)); // 0 has one spelling
  invalid(() => decodeFeedCursor(keys, 'br_a', `${position}.${recorded}.${'A'.repeat(16)}`));
  invalid(() => decodeFeedCursor(keys, 'br_a', `${text}.1`));
  invalid(() => decodeFeedCursor(keys, 'br_a', `0.${recorded}.${mac}`));
  invalid(() => decodeFeedCursor(keys, 'br_a', `zzzzzzzzzzz.${recorded}.${mac}`)); // past 2^53
  invalid(() => decodeFeedCursor(keys, 'br_a', 'garbage'));
  // a recorded value added to an older-shape cursor does not pass either
  const older = olderRelease('br_a', 10);
  invalid(() => decodeFeedCursor(keys, 'br_a', older.replace('.', '.4.')));
});

it('is bound to the brand it was issued for', () => {
  const text = encodeFeedCursor(keys, 'br_a', { position: 10, expiredThrough: 4 });
  invalid(() => decodeFeedCursor(keys, 'br_b', text));
  invalid(() => decodeFeedCursor(keys, 'br_b', olderRelease('br_a', 10)));
});

it('lives through a rotation: the current key signs, the previous ones verify', () => {
  const before = cursorKeys('events-feed-cursor', PREVIOUS);
  const rotated = cursorKeys('events-feed-cursor', CURRENT, [PREVIOUS]);
  const issued = encodeFeedCursor(before, 'br_a', { position: 10, expiredThrough: 4 });
  expect(decodeFeedCursor(rotated, 'br_a', issued)).toEqual({ position: 10, expiredThrough: 4 });
  const signed = encodeFeedCursor(rotated, 'br_a', { position: 10, expiredThrough: 4 });
  expect(signed).toBe(encodeFeedCursor(keys, 'br_a', { position: 10, expiredThrough: 4 }));
  expect(decodeFeedCursor(rotated, 'br_a', olderRelease('br_a', 3)).position).toBe(3);
  // the previous key dropped from the list: its cursors are refused
  invalid(() => decodeFeedCursor(keys, 'br_a', issued));
  // the audit log's key does not sign a feed cursor
  const audit = cursorKeys('audit-log-cursor', CURRENT);
  invalid(() =>
    decodeFeedCursor(
      audit,
      'br_a',
      encodeFeedCursor(keys, 'br_a', { position: 1, expiredThrough: 2 }),
    ),
  );
});

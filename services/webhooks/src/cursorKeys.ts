import { hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The MAC keys of the service's own cursors (the events feed's, the audit log's), each derived
 * from one of the secrets keys under the cursor's own name, so neither cursor passes for the
 * other and neither needs a secret of its own. The first, from WEBHOOK_SECRET_KEY, signs; every
 * one, WEBHOOK_SECRET_KEYS_PREVIOUS's too, verifies. So a cursor a client holds lives through a
 * rotation of the secrets key done as docs/operating.md says (the new key first added as a
 * previous one everywhere, then made current): while pods of both steps serve, each takes the
 * other's cursors.
 */
export type CursorKeys = readonly [Buffer, ...Buffer[]];

export function cursorKeys(
  purpose: 'events-feed-cursor' | 'audit-log-cursor',
  currentBase64: string,
  previousBase64: readonly string[] = [],
): CursorKeys {
  const derive = (keyBase64: string): Buffer =>
    Buffer.from(hkdfSync('sha256', Buffer.from(keyBase64, 'base64'), Buffer.alloc(0), purpose, 32));
  return [derive(currentBase64), ...previousBase64.map(derive)];
}

/** Whether `presented` is the MAC `macWith` gives under one of `keys`. */
export function signedByOneOf(
  keys: CursorKeys,
  presented: Buffer,
  macWith: (key: Buffer) => Buffer,
): boolean {
  return keys.some((key) => {
    const expected = macWith(key);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
}

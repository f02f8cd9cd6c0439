import { createHmac, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '@brand/shared/errors';
import { isCursorShaped, LIST_PARAM_MESSAGES, normalizeSince } from '@brand/shared/resources';
import type { ResourceName } from '@brand/shared/resources';

/** A position in a listing: the last row returned, and the since filter it was read with. */
export interface CursorPosition {
  /** created_at of the last row, exactly as PostgreSQL rendered it (microseconds). */
  createdAt: string;
  id: string;
  since: string | undefined;
}

/** What a cursor is bound to; a cursor presented under any other binding is refused. */
export interface CursorBinding {
  brandId: string;
  resource: ResourceName;
}

interface Payload {
  t: string;
  i: string;
  s?: string;
}

const OUR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const RECORD_ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/;

/**
 * Signs and verifies next_cursor values: `base64url(json position) "." base64url(HMAC)`.
 * The HMAC covers a version tag, the brand, the resource and the payload, so a cursor is
 * opaque to reason about, tamper-evident, and useless for another brand or resource
 * (those simply fail verification, indistinguishable from tampering). Verification also
 * accepts `previousSecrets`, so the signing secret can be rotated without breaking walks
 * in progress.
 */
export class CursorCodec {
  private readonly secrets: Buffer[];
  /**
   * The cursors this process signed lately, by binding and text, with their positions: a walk
   * presents the next_cursor it was just given, and a cursor found here is one this codec
   * signed for that very binding, so verifying it again (an HMAC, a base64 and JSON decode,
   * the payload's checks) can only give the same position. Bounded; anything else (another
   * replica's cursor, an old one, a forgery) takes the full check.
   */
  private readonly issued = new LRUCache<string, CursorPosition>({ max: ISSUED_CURSORS_KEPT });

  constructor(secret: string, previousSecrets: string[] = []) {
    this.secrets = [secret, ...previousSecrets].map((s) => Buffer.from(s, 'utf8'));
  }

  encode(binding: CursorBinding, position: CursorPosition): string {
    const payload: Payload = { t: position.createdAt, i: position.id };
    if (position.since !== undefined) payload.s = position.since;
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    const cursor = `${body}.${this.mac(this.secrets[0]!, binding, body).toString('base64url')}`;
    // remembered as decode would read it back (a position it would refuse is not remembered)
    const decoded = checkedPosition(payload);
    if (decoded !== undefined) this.issued.set(issuedKey(binding, cursor), decoded);
    return cursor;
  }

  /** The position a cursor encodes. Throws AppError('invalid_cursor') for anything else. */
  decode(binding: CursorBinding, cursor: string): CursorPosition {
    const issued = this.issued.get(issuedKey(binding, cursor));
    if (issued !== undefined) return issued;
    if (!isCursorShaped(cursor)) throw invalidCursor();
    const [body, tag] = cursor.split('.') as [string, string];
    const presented = Buffer.from(tag, 'base64url');
    // base64url decoding ignores the spare low bits of the last character, so without this
    // check four different strings would carry the same tag and an altered cursor would pass
    if (presented.toString('base64url') !== tag) throw invalidCursor();
    const authentic = this.secrets.some((secret) => {
      const expected = this.mac(secret, binding, body);
      return presented.length === expected.length && timingSafeEqual(presented, expected);
    });
    if (!authentic) throw invalidCursor();
    return parsePayload(body);
  }

  private mac(secret: Buffer, binding: CursorBinding, body: string): Buffer {
    return createHmac('sha256', secret)
      .update(`cursor.v1\n${binding.brandId}\n${binding.resource}\n${body}`)
      .digest();
  }
}

/** How many signed cursors CursorCodec remembers (a few MB at most). */
const ISSUED_CURSORS_KEPT = 10_000;

const issuedKey = (binding: CursorBinding, cursor: string): string =>
  `${binding.brandId}\n${binding.resource}\n${cursor}`;

/** Even a correctly signed payload is checked: a leaked secret must not open SQL to junk. */
function parsePayload(body: string): CursorPosition {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const position = checkedPosition(payload as Partial<Payload> | null);
  if (position === undefined) throw invalidCursor();
  return position;
}

/** The position a payload holds (frozen, since normalised to UTC), or undefined if it is not one. */
function checkedPosition(p: Partial<Payload> | null): CursorPosition | undefined {
  if (
    typeof p?.t !== 'string' ||
    !OUR_TIMESTAMP.test(p.t) ||
    typeof p.i !== 'string' ||
    !RECORD_ID.test(p.i)
  ) {
    return undefined;
  }
  let since: string | undefined;
  if (p.s !== undefined) {
    since = typeof p.s === 'string' ? normalizeSince(p.s) : undefined;
    if (since === undefined) return undefined;
  }
  return Object.freeze({ createdAt: p.t, id: p.i, since });
}

/** As the gateway refuses a malformed cursor (listParams.ts): one detail, on the cursor. */
function invalidCursor(): AppError {
  return new AppError('invalid_cursor', LIST_PARAM_MESSAGES.cursor, {
    details: [{ field: 'cursor', message: LIST_PARAM_MESSAGES.cursor }],
  });
}

import { AppError } from '../errors/appError';
import { decodeKeysetCursor, encodeKeysetCursor } from '../db/keysetCursor';
import { decodeActivityCursor, encodeActivityCursor } from './activityCursor';

const b = { brandId: 'br_B', filters: {} };
const p = { created_at: '2026-11-25T07:30:00.123456Z', id: 'act_abc' };

describe('activity cursors', () => {
  it('round-trip a position within their listing', () => {
    expect(decodeActivityCursor(b, encodeActivityCursor(b, p))).toEqual(p);
    const filtered = { brandId: 'br_B', filters: { actionPrefix: 'key.', since: new Date(0) } };
    expect(decodeActivityCursor(filtered, encodeActivityCursor(filtered, p))).toEqual(p);
  });

  it.each(['', 'nope', Buffer.from('[1,2]').toString('base64url'), 'a'.repeat(500), '%%%'])(
    '%j is invalid_cursor',
    (c) => {
      expect(() => decodeActivityCursor(b, c)).toThrow('cursor: not a cursor this listing issued');
    },
  );

  it('refuse another brand’s cursor (issue 42: brand C’s cursor was read on B)', () => {
    const c = encodeActivityCursor({ brandId: 'br_C', filters: {} }, p);
    let refused: unknown;
    try {
      decodeActivityCursor(b, c);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('invalid_cursor');
    expect(() => decodeActivityCursor(b, c)).toThrow('cursor: belongs to another brand');
  });

  it('refuse a cursor of another listing: other filters, or another walk’s keyset cursor', () => {
    const unfiltered = encodeActivityCursor(b, p);
    expect(() =>
      decodeActivityCursor({ brandId: 'br_B', filters: { action: 'key.created' } }, unfiltered),
    ).toThrow('cursor: belongs to another listing');
    const requestLog = encodeKeysetCursor(p);
    expect(decodeKeysetCursor(requestLog, /^act_/)).toEqual(p);
    expect(() => decodeActivityCursor(b, requestLog)).toThrow('cursor: not a cursor');
  });
});

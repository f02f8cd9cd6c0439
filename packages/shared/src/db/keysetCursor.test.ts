import { AppError } from '../errors';
import { decodeKeysetCursor, encodeKeysetCursor } from './keysetCursor';

describe('the keyset cursor', () => {
  const DLV = /^dlv_[A-Za-z0-9]{1,64}$/;
  const position = { created_at: '2026-11-24T10:15:30.123456Z', id: 'dlv_abc123' };

  it('round-trips a position', () => {
    expect(decodeKeysetCursor(encodeKeysetCursor(position), DLV)).toEqual(position);
  });

  it.each([
    ['not base64url', 'a b c'],
    ['not JSON', Buffer.from('{').toString('base64url')],
    ['an object', Buffer.from('{"created_at":"x"}').toString('base64url')],
    [
      'three items',
      Buffer.from(JSON.stringify([...Object.values(position), 'x'])).toString('base64url'),
    ],
    [
      'a time without microseconds',
      Buffer.from('["2026-11-24T10:15:30Z","dlv_a"]').toString('base64url'),
    ],
    ['no real time', Buffer.from('["2026-13-45T10:15:30.123456Z","dlv_a"]').toString('base64url')],
    ['30 February', Buffer.from('["2026-02-30T10:15:30.123456Z","dlv_a"]').toString('base64url')],
    ['24:00', Buffer.from('["2026-01-01T24:00:00.000000Z","dlv_a"]').toString('base64url')],
    ['year 0', Buffer.from('["0000-01-01T00:00:00.000000Z","dlv_a"]').toString('base64url')],
    ['another id', Buffer.from('["2026-11-24T10:15:30.123456Z","evt_a"]').toString('base64url')],
    ['too long', 'A'.repeat(201)],
  ])('refuses %s as validation_failed on cursor', (_what, cursor) => {
    let thrown: unknown;
    try {
      decodeKeysetCursor(cursor, DLV);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('validation_failed');
    expect((thrown as AppError).message).toMatch(/cursor/);
  });
});

import { AppError } from '@brand/shared/errors';
import { LIST_PARAM_MESSAGES } from '@brand/shared/resources';
import { CursorCodec, type CursorBinding, type CursorPosition } from './cursor';

const SECRET = 'cursor-secret-for-unit-tests-0123456789';
const OLD_SECRET = 'the-previous-cursor-secret-0123456789ab';
const binding: CursorBinding = { brandId: 'br_AAAAAAAAAAAAAAAAAAAA', resource: 'submissions' };
const position: CursorPosition = {
  createdAt: '2026-01-31T23:59:59.123456Z',
  id: 'sub_3kTMd9Q0bXh7RzL2aP1c',
  since: undefined,
};

/** Asserts `fn` throws the one invalid_cursor error clients see. */
function expectInvalid(fn: () => unknown): void {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(AppError);
  expect(thrown).toMatchObject({ code: 'invalid_cursor', message: LIST_PARAM_MESSAGES.cursor });
}

/** Replaces the character at `index` with a different base64url character. */
function flip(s: string, index: number): string {
  const c = s[index]!;
  return `${s.slice(0, index)}${c === 'A' ? 'B' : 'A'}${s.slice(index + 1)}`;
}

describe('CursorCodec', () => {
  const codec = new CursorCodec(SECRET);

  it('round-trips a position, microseconds included', () => {
    const cursor = codec.encode(binding, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(binding, cursor)).toEqual(position);
  });

  it('round-trips the since filter a walk was started with', () => {
    const withSince = { ...position, since: '2026-01-01T00:00:00.500000Z' };
    expect(codec.decode(binding, codec.encode(binding, withSince))).toEqual(withSince);
  });

  it('reads a since written with an offset (cursors issued before UTC normalisation) as UTC', () => {
    const older = { ...position, since: '2026-01-01T08:00:00.5+08:00' };
    expect(codec.decode(binding, codec.encode(binding, older)).since).toBe(
      '2026-01-01T00:00:00.500000Z',
    );
  });

  it('is opaque: the id and timestamp are not readable as plain text', () => {
    const cursor = codec.encode(binding, position);
    expect(cursor).not.toContain(position.id);
    expect(cursor).not.toContain('2026-01-31');
  });

  it('refuses a tampered body', () => {
    const cursor = codec.encode(binding, position);
    const [body, tag] = cursor.split('.') as [string, string];
    for (const i of [0, Math.floor(body.length / 2), body.length - 1]) {
      expectInvalid(() => codec.decode(binding, `${flip(body, i)}.${tag}`));
    }
    // a re-signed-looking body for another position, with the original tag
    const other = codec.encode(binding, { ...position, id: 'sub_zzzzzzzzzzzzzzzzzzzz' });
    expectInvalid(() => codec.decode(binding, `${other.split('.')[0]}.${tag}`));
  });

  it('refuses a tampered tag', () => {
    const cursor = codec.encode(binding, position);
    const [body, tag] = cursor.split('.') as [string, string];
    for (const i of [0, 10, 20])
      expectInvalid(() => codec.decode(binding, `${body}.${flip(tag, i)}`));
  });

  it('refuses every single-character change of the tag, the last one included', () => {
    const cursor = codec.encode(binding, position);
    const [body, tag] = cursor.split('.') as [string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < tag.length; i++) {
      for (const c of alphabet) {
        if (c === tag[i]) continue;
        const altered = `${body}.${tag.slice(0, i)}${c}${tag.slice(i + 1)}`;
        expectInvalid(() => codec.decode(binding, altered));
      }
    }
  });

  it('refuses a truncated cursor', () => {
    const cursor = codec.encode(binding, position);
    const dot = cursor.indexOf('.');
    for (const cut of [
      cursor.slice(0, -1),
      cursor.slice(0, -10),
      cursor.slice(0, dot + 1),
      cursor.slice(0, dot),
      cursor.slice(1),
    ]) {
      expectInvalid(() => codec.decode(binding, cut));
    }
  });

  it('refuses a cursor of another brand', () => {
    const cursor = codec.encode(binding, position);
    expectInvalid(() => codec.decode({ ...binding, brandId: 'br_BBBBBBBBBBBBBBBBBBBB' }, cursor));
  });

  it('refuses a cursor of another resource of the same brand', () => {
    const cursor = codec.encode(binding, position);
    expectInvalid(() => codec.decode({ ...binding, resource: 'payouts' }, cursor));
  });

  it.each([
    '',
    'garbage',
    'a.b',
    '..',
    'a.b.c',
    '😀.😀',
    'eyJ0IjoiIn0.',
    "x' or 1=1 --.y",
    `${'A'.repeat(400)}.${'B'.repeat(200)}`,
  ])('refuses garbage %p', (value) => expectInvalid(() => codec.decode(binding, value)));

  it('refuses a correctly signed payload that is not a position', () => {
    const bad: CursorPosition[] = [
      { ...position, createdAt: '2026-01-31T23:59:59Z' },
      { ...position, createdAt: "2026-01-31T23:59:59.123456Z' or 1=1" },
      { ...position, id: 'sub_' },
      { ...position, id: "sub_x'; drop table" },
      { ...position, since: '2026-02-30T00:00:00Z' },
    ];
    for (const p of bad) expectInvalid(() => codec.decode(binding, codec.encode(binding, p)));
  });

  describe('the cursors it signed lately', () => {
    it('reads back one it issued without checking it again, as the full check reads it', () => {
      const mine = new CursorCodec(SECRET);
      const withSince = { ...position, since: '2026-01-01T00:00:00Z' };
      for (const p of [position, withSince]) {
        const cursor = mine.encode(binding, p);
        const remembered = mine.decode(binding, cursor);
        // the same object twice: the remembered position, not a fresh decode
        expect(mine.decode(binding, cursor)).toBe(remembered);
        // a codec that never issued it reaches the same position through the HMAC
        const checked = new CursorCodec(SECRET).decode(binding, cursor);
        expect(checked).not.toBe(remembered);
        expect(remembered).toEqual(checked);
      }
    });

    it('remembers a cursor for its own brand and resource only', () => {
      const mine = new CursorCodec(SECRET);
      const cursor = mine.encode(binding, position);
      expectInvalid(() => mine.decode({ ...binding, brandId: 'br_BBBBBBBBBBBBBBBBBBBB' }, cursor));
      expectInvalid(() => mine.decode({ ...binding, resource: 'links' }, cursor));
      expectInvalid(() => mine.decode(binding, flip(cursor, cursor.length - 1)));
    });

    it('remembers a since as the full check reads it: in UTC', () => {
      const mine = new CursorCodec(SECRET);
      const cursor = mine.encode(binding, { ...position, since: '2026-01-01T02:00:00+02:00' });
      expect(mine.decode(binding, cursor).since).toBe('2026-01-01T00:00:00.000000Z');
    });

    it('forgets the oldest past 10,000, and still reads them by the full check', () => {
      const mine = new CursorCodec(SECRET);
      const first = mine.encode(binding, position);
      const remembered = mine.decode(binding, first);
      for (let i = 0; i < 10_000; i++)
        mine.encode(binding, { ...position, id: `sub_${i.toString().padStart(6, '0')}` });
      const again = mine.decode(binding, first);
      expect(again).not.toBe(remembered);
      expect(again).toEqual(position);
    });
  });

  describe('secret rotation', () => {
    const before = new CursorCodec(OLD_SECRET);
    const during = new CursorCodec(SECRET, [OLD_SECRET]);
    const after = new CursorCodec(SECRET);

    it('accepts cursors signed with a previous secret while it is listed', () => {
      const issuedBefore = before.encode(binding, position);
      expect(during.decode(binding, issuedBefore)).toEqual(position);
    });

    it('signs new cursors with the current secret only', () => {
      const issuedDuring = during.encode(binding, position);
      expect(after.decode(binding, issuedDuring)).toEqual(position);
      expectInvalid(() => before.decode(binding, issuedDuring));
    });

    it('refuses old cursors once the previous secret is dropped', () => {
      expectInvalid(() => after.decode(binding, before.encode(binding, position)));
    });

    it('still binds old cursors to their brand and resource', () => {
      const issuedBefore = before.encode(binding, position);
      expectInvalid(() => during.decode({ ...binding, resource: 'links' }, issuedBefore));
    });
  });
});

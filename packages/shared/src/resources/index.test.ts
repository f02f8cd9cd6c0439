import fc from 'fast-check';
import {
  DEFAULT_LIMIT,
  isCursorShaped,
  isResourceName,
  isValidLimit,
  laterSince,
  MAX_LIMIT,
  normalizeSince,
  parseLimitString,
  RESOURCES,
  toolNameOf,
} from './index';

describe('RESOURCES', () => {
  it('are the six contract resources in contract order, each with its list_ tool', () => {
    expect(RESOURCES).toEqual([
      'campaigns',
      'submissions',
      'payouts',
      'deposits',
      'conversions',
      'links',
    ]);
    expect(RESOURCES.map(toolNameOf)).toEqual([
      'list_campaigns',
      'list_submissions',
      'list_payouts',
      'list_deposits',
      'list_conversions',
      'list_links',
    ]);
  });

  it.each(['campaign', 'Campaigns', 'users', '', 'toString', ' links'])(
    'isResourceName refuses %p',
    (name) => expect(isResourceName(name)).toBe(false),
  );

  it('isResourceName accepts each resource and nothing that is not a string', () => {
    for (const r of RESOURCES) expect(isResourceName(r)).toBe(true);
    expect(isResourceName(undefined)).toBe(false);
    expect(isResourceName(['links'])).toBe(false);
  });
});

describe('normalizeSince', () => {
  it.each([
    ['2026-01-31T23:59:59Z', '2026-01-31T23:59:59.000000Z'],
    ['2026-01-31T23:59:59.123456+08:00', '2026-01-31T15:59:59.123456Z'],
    ['2026-01-31T23:59:59-05:30', '2026-02-01T05:29:59.000000Z'],
    ['2026-01-31T00:00:00+00:00', '2026-01-31T00:00:00.000000Z'],
    ['2026-01-31T23:59:59.1Z', '2026-01-31T23:59:59.100000Z'],
    ['2026-01-31T23:59:59.123456789Z', '2026-01-31T23:59:59.123456Z'],
    // truncated, never rounded: t > x.1234569 holds exactly when t > x.123456 for µs data
    ['2026-01-31T23:59:59.1234569Z', '2026-01-31T23:59:59.123456Z'],
    ['2026-01-31T23:59:59.1234567890123Z', '2026-01-31T23:59:59.123456Z'],
    ['2026-01-31t23:59:59z', '2026-01-31T23:59:59.000000Z'],
    // issue 7, defect 3: offsets PostgreSQL refuses (beyond +-15:59) are valid RFC 3339
    ['2026-11-22T10:00:00+16:00', '2026-11-21T18:00:00.000000Z'],
    ['2026-11-22T10:00:00+23:59', '2026-11-21T10:01:00.000000Z'],
    ['2026-11-22T10:00:00-23:59', '2026-11-23T09:59:00.000000Z'],
    // a leap second is the next second
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000000Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000000Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000000Z'],
    ['0000-02-29T00:00:00Z', '0001-01-01T00:00:00.000000Z'],
    ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00.000000Z'],
    ['0001-01-01T00:00:00.5+00:01', '0001-01-01T00:00:00.000000Z'],
    ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
    ['9999-12-31T23:59:59-23:59', '9999-12-31T23:59:59.999999Z'],
  ])('accepts %s as %s', (input, normalized) => {
    expect(normalizeSince(input)).toBe(normalized);
  });

  it.each([
    ['an impossible calendar date', '2026-02-30T00:00:00Z'],
    ['Feb 29 of a common year', '2026-02-29T00:00:00Z'],
    ['Feb 29 of a century non-leap year', '1900-02-29T00:00:00Z'],
    ['April 31', '2026-04-31T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['month 00', '2026-00-10T00:00:00Z'],
    ['day 00', '2026-01-00T00:00:00Z'],
    ['hour 24', '2026-01-31T24:00:00Z'],
    ['minute 60', '2026-01-31T23:60:00Z'],
    ['second 61', '2026-01-31T23:59:61Z'],
    ['a missing zone', '2026-01-31T23:59:59'],
    ['a missing zone with fraction', '2026-01-31T23:59:59.123456'],
    ['a date only', '2026-01-31'],
    ['an offset without colon', '2026-01-31T23:59:59+0800'],
    ['an hour-only offset', '2026-01-31T23:59:59+08'],
    ['an offset hour over 23', '2026-01-31T23:59:59+24:00'],
    ['an offset minute over 59', '2026-01-31T23:59:59+05:60'],
    ['an empty fraction', '2026-01-31T23:59:59.Z'],
    ['a comma fraction', '2026-01-31T23:59:59,5Z'],
    ['no seconds', '2026-01-31T23:59Z'],
    ['single-digit fields', '2026-1-31T23:59:59Z'],
    ['a five-digit year', '12026-01-31T23:59:59Z'],
    ['leading whitespace', ' 2026-01-31T23:59:59Z'],
    ['trailing whitespace', '2026-01-31T23:59:59Z '],
    ['a zone name', '2026-01-31T23:59:59 UTC'],
    ['epoch seconds', '1767225599'],
    ['the empty string', ''],
    ['SQL', "2026-01-31T23:59:59Z' or 1=1 --"],
  ])('refuses %s (%s)', (_, input) => {
    expect(normalizeSince(input)).toBeUndefined();
  });

  /** Generated RFC 3339 inputs over the whole grammar, with the instant they denote. */
  const pad = (n: number, w: number): string => String(n).padStart(w, '0');
  const rfc3339 = fc
    .record({
      ms: fc.integer({
        min: Date.parse('0001-01-02T00:00:00Z'),
        max: Date.parse('9999-12-30T00:00:00Z'),
      }),
      extraDigits: fc.stringMatching(/^[0-9]{0,6}$/),
      offset: fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
      t: fc.constantFrom('T', 't'),
      z: fc.constantFrom('Z', 'z', '+00:00', 'offset'),
    })
    .map(({ ms, extraDigits, offset, t, z }) => {
      const useOffset = z === 'offset';
      const local = new Date(ms + (useOffset ? offset * 60_000 : 0)).toISOString();
      const sign = offset < 0 ? '-' : '+';
      const zone = useOffset
        ? `${sign}${pad(Math.floor(Math.abs(offset) / 60), 2)}:${pad(Math.abs(offset) % 60, 2)}`
        : z;
      const input = `${local.slice(0, 10)}${t}${local.slice(11, 23)}${extraDigits}${zone}`;
      const expected = `${new Date(ms).toISOString().slice(0, 23)}${extraDigits.slice(0, 3).padEnd(3, '0')}Z`;
      return { input, expected };
    });

  it('maps every generated valid input to the same instant in UTC, in a form PostgreSQL takes', () => {
    fc.assert(
      fc.property(rfc3339, ({ input, expected }) => {
        expect(normalizeSince(input)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses every generated string that is not RFC 3339, and never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (input) => {
        const out = normalizeSince(input);
        if (!/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}/.test(input)) expect(out).toBeUndefined();
        if (out !== undefined) expect(out).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('parseLimitString', () => {
  it.each([
    ['1', 1],
    ['50', 50],
    ['200', 200],
    ['050', 50],
    ['0200', 200],
  ])('reads %p as %p', (input, n) => {
    expect(parseLimitString(input)).toBe(n);
  });

  it.each([
    '0',
    '201',
    '1000',
    '9999',
    '00000',
    '-1',
    '+5',
    '1.5',
    '5.0',
    '1e2',
    '0x10',
    'abc',
    '5abc',
    ' 5',
    '5 ',
    '',
    '٥',
    '10000',
  ])('refuses %p', (input) => {
    expect(parseLimitString(input)).toBeUndefined();
  });

  it('agrees with isValidLimit on the bounds', () => {
    expect([0, 1, MAX_LIMIT, MAX_LIMIT + 1, 1.5, NaN].map(isValidLimit)).toEqual([
      false,
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(DEFAULT_LIMIT).toBe(50);
    expect(MAX_LIMIT).toBe(200);
  });
});

describe('laterSince', () => {
  it('keeps the later of two normalized bounds, to the microsecond', () => {
    const a = normalizeSince('2026-01-01T08:00:00+08:00')!;
    const b = normalizeSince('2026-01-01T00:00:00.000001Z')!;
    expect(laterSince(a, b)).toBe(b);
    expect(laterSince(b, a)).toBe(b);
    // local time order says the opposite of instant order here
    const c = normalizeSince('2025-12-31T23:30:00-01:00')!;
    expect(laterSince(c, normalizeSince('2026-01-01T00:10:00Z'))).toBe(c);
  });

  it('returns the one bound that is present', () => {
    expect(laterSince(undefined, '2026-01-01T00:00:00.000000Z')).toBe(
      '2026-01-01T00:00:00.000000Z',
    );
    expect(laterSince('2026-01-01T00:00:00.000000Z', undefined)).toBe(
      '2026-01-01T00:00:00.000000Z',
    );
    expect(laterSince(undefined, undefined)).toBeUndefined();
  });
});

describe('isCursorShaped', () => {
  it('accepts base64url text with one dot', () => {
    expect(isCursorShaped('eyJ0IjoiMjAyNiJ9.abc_-DEF')).toBe(true);
  });

  it.each([
    '',
    'nodot',
    'a.b.c',
    '.abc',
    'abc.',
    'a+b.c',
    'a/b.c',
    'ab=.c',
    'a b.c',
    `${'a'.repeat(600)}.b`,
  ])('refuses %p', (value) => expect(isCursorShaped(value)).toBe(false));
});

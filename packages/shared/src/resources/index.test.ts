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
  sinceEpochMicros,
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
    ['2026-01-31T23:59:59Z', '2026-01-31T23:59:59Z'],
    ['2026-01-31T23:59:59.123456+08:00', '2026-01-31T23:59:59.123456+08:00'],
    ['2026-01-31T23:59:59-05:30', '2026-01-31T23:59:59-05:30'],
    ['2026-01-31T00:00:00+00:00', '2026-01-31T00:00:00+00:00'],
    ['2026-01-31T23:59:59.1Z', '2026-01-31T23:59:59.1Z'],
    ['2026-01-31T23:59:59.12Z', '2026-01-31T23:59:59.12Z'],
    ['2026-01-31T23:59:59.123456789Z', '2026-01-31T23:59:59.123456Z'],
    // truncated, never rounded: t > x.1234569 holds exactly when t > x.123456 for µs data
    ['2026-01-31T23:59:59.1234569Z', '2026-01-31T23:59:59.123456Z'],
    ['2026-01-31T23:59:59.99999999+14:00', '2026-01-31T23:59:59.999999+14:00'],
    ['2026-01-31t23:59:59z', '2026-01-31T23:59:59Z'],
    ['2026-01-31t23:59:59.5-03:00', '2026-01-31T23:59:59.5-03:00'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00Z'],
    ['2026-12-31T23:59:59Z', '2026-12-31T23:59:59Z'],
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
    ['year 0000', '0000-01-01T00:00:00Z'],
    ['hour 24', '2026-01-31T24:00:00Z'],
    ['minute 60', '2026-01-31T23:60:00Z'],
    ['second 60', '2026-01-31T23:59:60Z'],
    ['a missing zone', '2026-01-31T23:59:59'],
    ['a missing zone with fraction', '2026-01-31T23:59:59.123456'],
    ['a date only', '2026-01-31'],
    ['an offset without colon', '2026-01-31T23:59:59+0800'],
    ['an hour-only offset', '2026-01-31T23:59:59+08'],
    ['an offset hour over 23', '2026-01-31T23:59:59+24:00'],
    ['an offset minute over 59', '2026-01-31T23:59:59+05:60'],
    ['ten fractional digits', '2026-01-31T23:59:59.1234567890Z'],
    ['an empty fraction', '2026-01-31T23:59:59.Z'],
    ['a comma fraction', '2026-01-31T23:59:59,5Z'],
    ['no seconds', '2026-01-31T23:59Z'],
    ['single-digit fields', '2026-1-31T23:59:59Z'],
    ['leading whitespace', ' 2026-01-31T23:59:59Z'],
    ['trailing whitespace', '2026-01-31T23:59:59Z '],
    ['a zone name', '2026-01-31T23:59:59 UTC'],
    ['epoch seconds', '1767225599'],
    ['the empty string', ''],
    ['SQL', "2026-01-31T23:59:59Z' or 1=1 --"],
  ])('refuses %s (%s)', (_, input) => {
    expect(normalizeSince(input)).toBeUndefined();
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

describe('sinceEpochMicros and laterSince', () => {
  it('keeps microseconds', () => {
    expect(
      sinceEpochMicros('2026-01-01T00:00:00.000001Z') - sinceEpochMicros('2026-01-01T00:00:00Z'),
    ).toBe(1n);
    expect(sinceEpochMicros('1970-01-01T00:00:01.5Z')).toBe(1_500_000n);
  });

  it('compares instants, not strings, across time zones', () => {
    // 08:00+08:00 is midnight UTC, one microsecond before the second bound
    expect(laterSince('2026-01-01T08:00:00+08:00', '2026-01-01T00:00:00.000001Z')).toBe(
      '2026-01-01T00:00:00.000001Z',
    );
    // string order says the opposite of instant order here
    expect(laterSince('2025-12-31T23:30:00-01:00', '2026-01-01T00:10:00Z')).toBe(
      '2025-12-31T23:30:00-01:00',
    );
    expect(laterSince('2026-01-01T00:10:00Z', '2025-12-31T23:30:00-01:00')).toBe(
      '2025-12-31T23:30:00-01:00',
    );
  });

  it('treats the same instant in two zones as equal and keeps either', () => {
    const a = '2026-01-01T08:00:00+08:00';
    const b = '2026-01-01T00:00:00Z';
    expect(sinceEpochMicros(a)).toBe(sinceEpochMicros(b));
    expect([a, b]).toContain(laterSince(a, b));
  });

  it('returns the one bound that is present', () => {
    expect(laterSince(undefined, '2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00Z');
    expect(laterSince('2026-01-01T00:00:00Z', undefined)).toBe('2026-01-01T00:00:00Z');
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

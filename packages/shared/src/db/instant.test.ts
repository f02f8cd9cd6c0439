import { isRealInstant } from './instant';

describe('isRealInstant', () => {
  it.each([
    '2026-11-22T10:00:00.123456Z',
    '2026-11-22T10:00:00Z',
    '2024-02-29T23:59:59.1+02:00',
    '2026-01-01T00:00:00-05:30',
  ])('takes %s', (s) => expect(isRealInstant(s)).toBe(true));

  it.each([
    '2026-02-30T10:00:00Z', // a day February does not have
    '2025-02-29T10:00:00Z', // not a leap year
    '2026-11-22T24:00:00Z',
    '2026-11-22T10:60:00Z',
    '0000-01-01T00:00:00Z', // PostgreSQL has no year 0
    '2026-11-22T10:00:00+24:00',
    '2026-11-22T10:00:00+16:00', // PostgreSQL takes offsets up to 15:59
    '2026-11-22 10:00:00Z',
    '1',
    '',
  ])('refuses %s', (s) => expect(isRealInstant(s)).toBe(false));
});

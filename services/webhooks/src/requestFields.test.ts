import { AppError } from '@brand/shared/errors';
import { parseTimestamp, toSecond } from './requestFields';

describe('parseTimestamp', () => {
  it.each(['2026-11-20T14:00:00Z', '2026-11-20T14:00Z', '2026-11-20T16:00:00.5+02:00'])(
    'reads %s',
    (value) => {
      expect(parseTimestamp(value, 'since').getTime()).toBe(
        Date.parse(value.includes('.5') ? '2026-11-20T14:00:00.500Z' : '2026-11-20T14:00:00Z'),
      );
    },
  );

  it.each([
    '',
    'yesterday',
    '2026-11-20',
    '2026-11-20T14:00:00',
    '2026-13-01T00:00:00Z',
    '1700000000',
  ])('refuses %j with validation_failed naming the field', (value) => {
    let err: unknown;
    try {
      parseTimestamp(value, 'since');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'validation_failed', details: [{ field: 'since' }] });
  });
});

describe('toSecond', () => {
  it('writes RFC 3339 to the second in UTC', () => {
    expect(toSecond(new Date('2026-11-20T14:00:00.999Z'))).toBe('2026-11-20T14:00:00Z');
  });
});

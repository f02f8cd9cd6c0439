import { AppError } from '../errors/appError';
import { parseTimeBound, parseTimeRange } from './timeBound';

describe('parseTimeBound', () => {
  it.each([
    ['2026-11-25', '2026-11-25T00:00:00.000Z'],
    ['2026-11-25T07:30', '2026-11-25T07:30:00.000Z'],
    ['2026-11-25 07:30:15', '2026-11-25T07:30:15.000Z'],
    ['2026-11-25T07:30:15.123456Z', '2026-11-25T07:30:15.123Z'],
    ['2026-11-25T08:30:00+01:00', '2026-11-25T07:30:00.000Z'],
  ])('%s is %s', (input, iso) => {
    expect(parseTimeBound(input, 'since').toISOString()).toBe(iso);
  });

  it.each(['yesterday', '2026-02-31', '2026-11-25T25:00', '1700000000', '2026-11-25T07:30Zjunk'])(
    '%s is validation_failed naming the field',
    (input) => {
      expect(() => parseTimeBound(input, 'until')).toThrow(AppError);
      expect(() => parseTimeBound(input, 'until')).toThrow(/^until: must be a time/);
    },
  );
});

describe('parseTimeRange', () => {
  it('leaves empty bounds open', () => {
    expect(parseTimeRange({ since: '', until: '' })).toEqual({
      since: undefined,
      until: undefined,
    });
  });

  it('refuses until at or before since', () => {
    expect(() => parseTimeRange({ since: '2026-11-25', until: '2026-11-25' })).toThrow(
      'until: must be after since.',
    );
    expect(() => parseTimeRange({ since: '2026-11-25', until: '2026-11-24' })).toThrow(
      'until: must be after since.',
    );
  });
});

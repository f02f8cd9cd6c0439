import { InvalidArgumentError } from 'commander';
import { parseDuration, parseSince, parseSwitchAt } from './args';

describe('parseDuration', () => {
  it.each([
    ['30m', 1_800_000],
    ['1h', 3_600_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
  ])('reads %s', (value, ms) => {
    expect(parseDuration(value)).toBe(ms);
  });

  it.each(['', '0h', '1', 'h', '1w', '-1h', '1.5h', '99999d'])(
    'refuses %j as a usage error',
    (v) => {
      expect(() => parseDuration(v)).toThrow(InvalidArgumentError);
    },
  );
});

describe('parseSince', () => {
  const now = new Date('2026-11-20T14:00:00.250Z');

  it('turns a duration back from now into one RFC 3339 instant', () => {
    expect(parseSince('6h', now)).toBe('2026-11-20T08:00:00Z');
    expect(parseSince('3d', now)).toBe('2026-11-17T14:00:00Z');
  });

  it('passes anything else to the service, which checks it', () => {
    expect(parseSince(' 2026-11-20T14:00:00Z ', now)).toBe('2026-11-20T14:00:00Z');
    expect(parseSince('last week', now)).toBe('last week');
  });
});

describe('parseSince bounds', () => {
  const now = new Date('2026-11-20T14:00:00.250Z');

  it.each(['20000d', '3651d', '99999h'])(
    'refuses %j naming both forms and the bound exceeded',
    (v) => {
      let message = '';
      try {
        parseSince(v, now);
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidArgumentError);
        message = (err as Error).message;
      }
      expect(message).toMatch(/RFC 3339/);
      expect(message).toMatch(/6h/);
      expect(message).toMatch(/3650d/);
    },
  );

  it('accepts a duration up to the bound', () => {
    expect(parseSince('3650d', now)).toBe('2016-11-22T14:00:00Z');
  });
});

describe('parseSwitchAt', () => {
  const now = new Date('2026-11-20T14:00:00Z');

  it('passes a future time, or one within a minute of clock skew', () => {
    expect(parseSwitchAt('2026-11-21T09:00:00Z', now)).toBe('2026-11-21T09:00:00Z');
    expect(parseSwitchAt('2026-11-20T13:59:30Z', now)).toBe('2026-11-20T13:59:30Z');
  });

  it.each(['2000-01-01T00:00:00Z', '2026-11-20T13:58:00Z', '2026-11-20T15:00:00+02:00'])(
    'refuses %j, in the past, as a usage error',
    (v) => {
      expect(() => parseSwitchAt(v, now)).toThrow(/in the past/);
      expect(() => parseSwitchAt(v, now)).toThrow(InvalidArgumentError);
    },
  );

  it.each(['tomorrow', '2026-11-21T09:00:00', '2026-11-21'])(
    'refuses %j, not an RFC 3339 time with its offset',
    (v) => {
      expect(() => parseSwitchAt(v, now)).toThrow(/RFC 3339/);
    },
  );
});

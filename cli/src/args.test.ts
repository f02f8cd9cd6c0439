import { InvalidArgumentError } from 'commander';
import { parseDuration, parseSince } from './args';

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

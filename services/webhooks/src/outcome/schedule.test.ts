import { ATTEMPTS_PER_ROUND, RETRY_DELAYS_MS } from '@brand/shared/webhooks';
import { nextAttemptAt, parseRetryAfterMs } from './schedule';

const now = new Date('2026-11-22T10:00:00Z');
const delayOf = (o: Partial<Parameters<typeof nextAttemptAt>[0]>): number | undefined => {
  const at = nextAttemptAt({
    attemptInRound: 1,
    status: 500,
    timedOut: false,
    retryAfter: undefined,
    scale: 1,
    now,
    random: 0.5,
    ...o,
  });
  return at === undefined ? undefined : at.getTime() - now.getTime();
};

describe('nextAttemptAt', () => {
  it('follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then gives up (10 attempts)', () => {
    const hours = [5 / 3600, 5 / 60, 0.5, 2, 5, 10, 14, 20, 24];
    hours.forEach((h, i) => expect(delayOf({ attemptInRound: i + 1 })).toBe(h * 3600_000));
    expect(ATTEMPTS_PER_ROUND).toBe(10);
    expect(delayOf({ attemptInRound: 10 })).toBeUndefined();
  });

  it('jitters by at most 10%', () => {
    expect(delayOf({ random: 0 })).toBe(4_500);
    expect(delayOf({ random: 1 })).toBe(5_500);
  });

  it('waits at least 60 s after 429, 503 and timeouts', () => {
    expect(delayOf({ status: 429 })).toBe(60_000);
    expect(delayOf({ status: 503 })).toBe(60_000);
    expect(delayOf({ status: undefined, timedOut: true })).toBe(60_000);
    expect(delayOf({ status: 500 })).toBe(5_000);
  });

  it('honours Retry-After up to twice the scheduled delay', () => {
    expect(delayOf({ attemptInRound: 2, retryAfter: '400' })).toBe(400_000);
    expect(delayOf({ attemptInRound: 2, retryAfter: '99999' })).toBe(2 * RETRY_DELAYS_MS[1]);
    expect(delayOf({ attemptInRound: 2, retryAfter: '1' })).toBe(RETRY_DELAYS_MS[1]);
  });

  it('scales every delay (RETRY_TIME_SCALE)', () => {
    expect(delayOf({ scale: 0.001 })).toBe(5);
  });
});

describe('parseRetryAfterMs', () => {
  it('reads seconds and HTTP dates, ignores junk', () => {
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});

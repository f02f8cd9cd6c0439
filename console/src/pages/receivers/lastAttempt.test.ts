import { lastAttemptSucceeded, lastAttemptUncounted, lastAttemptWords } from './lastAttempt';

const at = '2026-11-30T23:23:00.000Z';
const since = '2026-11-30T20:00:00.000Z';

describe("a receiver's last attempt in words", () => {
  it('names a failed attempt with no streak as not counted, and a 2xx within a streak too', () => {
    const test500 = { last_status: 500, last_delivery_at: at, failing_since: '' };
    expect(lastAttemptUncounted(test500)).toBe(true);
    expect(lastAttemptSucceeded(test500)).toBe(false);
    expect(lastAttemptWords(test500)).toMatch(
      /^2026-11-30 23:23 UTC, HTTP 500, not counted \(a Test, .*enabled it again/,
    );
    const test200 = { last_status: 200, last_delivery_at: at, failing_since: since };
    expect(lastAttemptUncounted(test200)).toBe(true);
    expect(lastAttemptWords(test200)).toMatch(
      /HTTP 200, not counted \(a Test, or a delivery of a type/,
    );
  });

  it('says plainly what counted: a 2xx with no streak, a failure within one, none yet', () => {
    expect(lastAttemptWords({ last_status: 204, last_delivery_at: at, failing_since: '' })).toBe(
      '2026-11-30 23:23 UTC, HTTP 204',
    );
    expect(lastAttemptWords({ last_status: 0, last_delivery_at: at, failing_since: since })).toBe(
      '2026-11-30 23:23 UTC, no response',
    );
    expect(lastAttemptWords({ last_status: 0, last_delivery_at: '', failing_since: '' })).toBe(
      'never',
    );
  });
});

import {
  backoffDelayMs,
  DEFAULT_RETRY_TUNING,
  parseRetryAfterMs,
  retryDelayMs,
  type AttemptFailure,
  type RetryContext,
} from './retryPolicy';

const tuning = { baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterSeconds: 60 };
const ctx = (over: Partial<RetryContext> = {}): RetryContext => ({
  retriesDone: 0,
  maxRetries: 2,
  idempotent: true,
  tuning,
  random: () => 0.5,
  ...over,
});
const status = (code: number, retryAfterMs?: number): AttemptFailure => ({
  kind: 'status',
  status: code,
  retryAfterMs,
});

describe('backoffDelayMs (full jitter)', () => {
  it.each([
    [0, 500],
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 8_000],
    [5, 8_000],
    [20, 8_000],
  ])('retry %i waits in [0, %i ms)', (n, ceiling) => {
    expect(backoffDelayMs(n, tuning, () => 0)).toBe(0);
    expect(backoffDelayMs(n, tuning, () => 0.999_999)).toBe(ceiling - 1);
    expect(backoffDelayMs(n, tuning, () => 0.5)).toBe(ceiling / 2);
  });

  it('spreads clients that failed together: 1,000 draws cover the range', () => {
    const draws = Array.from({ length: 1_000 }, () => backoffDelayMs(3, tuning, Math.random));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(4_000);
    expect(Math.min(...draws)).toBeLessThan(400);
    expect(Math.max(...draws)).toBeGreaterThan(3_600);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it.each([
    ['7', 7_000],
    [' 1 ', 1_000],
    ['0', 0],
    ['Sun, 22 Nov 2026 10:00:30 GMT', 30_000],
    ['Sun, 22 Nov 2026 09:59:00 GMT', 0],
  ])('reads %p as %i ms', (value, ms) => expect(parseRetryAfterMs(value, now)).toBe(ms));

  it.each([null, '', 'soon', '-5', '1.5', '12345678901'])('ignores %p', (value) =>
    expect(parseRetryAfterMs(value, now)).toBeUndefined(),
  );
});

describe('retryDelayMs', () => {
  it('retries connection failures and timeouts of idempotent requests with backoff', () => {
    expect(retryDelayMs({ kind: 'connection' }, ctx())).toBe(250);
    expect(retryDelayMs({ kind: 'connection' }, ctx({ retriesDone: 1 }))).toBe(500);
  });

  it.each([429, 502, 503, 504])('retries %i', (code) => {
    expect(retryDelayMs(status(code), ctx())).toBe(250);
  });

  it.each([400, 401, 403, 404, 405, 409, 413, 415, 422, 500, 501])('never retries %i', (code) => {
    expect(retryDelayMs(status(code), ctx())).toBeUndefined();
    expect(retryDelayMs(status(code, 1_000), ctx())).toBeUndefined();
  });

  it('never waits less than Retry-After, whatever the backoff draws', () => {
    for (const random of [() => 0, () => 0.5, () => 0.999]) {
      for (const retriesDone of [0, 1]) {
        const delay = retryDelayMs(status(429, 7_000), ctx({ random, retriesDone }));
        expect(delay).toBeGreaterThanOrEqual(7_000);
      }
    }
    expect(retryDelayMs(status(503, 2_000), ctx())).toBe(2_000);
  });

  it('keeps the longer backoff when Retry-After is shorter', () => {
    expect(retryDelayMs(status(429, 100), ctx({ retriesDone: 4, maxRetries: 9 }))).toBe(4_000);
  });

  it('does not wait out a Retry-After beyond maxRetryAfterSeconds: the caller decides', () => {
    expect(retryDelayMs(status(429, 60_000), ctx())).toBe(60_000);
    expect(retryDelayMs(status(429, 61_000), ctx())).toBeUndefined();
  });

  it('stops after maxRetries', () => {
    expect(retryDelayMs(status(503), ctx({ retriesDone: 1, maxRetries: 2 }))).toBeDefined();
    expect(retryDelayMs(status(503), ctx({ retriesDone: 2, maxRetries: 2 }))).toBeUndefined();
    expect(retryDelayMs({ kind: 'connection' }, ctx({ maxRetries: 0 }))).toBeUndefined();
  });

  it('never retries a request that is not idempotent, not even a 429 or a lost connection', () => {
    for (const failure of [status(429, 1_000), status(503), { kind: 'connection' } as const]) {
      expect(retryDelayMs(failure, ctx({ idempotent: false }))).toBeUndefined();
    }
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_RETRY_TUNING).toEqual(tuning);
  });
});

import { Metadata, status } from '@grpc/grpc-js';
import { ERROR_CODE_METADATA, fromServiceError, RETRY_AFTER_METADATA } from '@brand/shared/errors';
import { OUTAGE_LIMIT_MS, OutageWatch, readWaitingOut } from './followWaitOut';

/** A failed call as brandctl's caller rejects it; `sent`: the code (and Retry-After) the service sent. */
function failed(code: status, sent?: { code: string; retryAfter?: number }) {
  const metadata = new Metadata();
  if (sent) metadata.set(ERROR_CODE_METADATA, sent.code);
  if (sent?.retryAfter !== undefined) metadata.set(RETRY_AFTER_METADATA, String(sent.retryAfter));
  return fromServiceError(Object.assign(new Error('x'), { code, details: 'x', metadata }));
}

/** readWaitingOut over answers given in turn, on a clock that the waits move. */
function harness(answers: Array<unknown>) {
  let clock = 0;
  const waits: number[] = [];
  const lines: string[] = [];
  const stop = new AbortController();
  let calls = 0;
  const read = () => {
    const answer = answers[Math.min(calls++, answers.length - 1)];
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  };
  const result = () =>
    readWaitingOut(read, {
      intervalMs: 100,
      signal: stop.signal,
      notice: (line) => lines.push(line),
      peer: 'the webhooks service at h:1',
      position: () => 7,
      now: () => clock,
      sleep: (ms) => {
        waits.push(ms);
        clock += ms;
        return Promise.resolve();
      },
    });
  return { result, waits, lines, stop, calls: () => calls };
}

describe('readWaitingOut', () => {
  it("waits out UNAVAILABLE and DEADLINE_EXCEEDED with the REST follower's back-off, then answers", async () => {
    const h = harness([
      failed(status.UNAVAILABLE),
      failed(status.DEADLINE_EXCEEDED),
      failed(status.UNAVAILABLE),
      'page',
    ]);
    expect(await h.result()).toBe('page');
    expect(h.waits).toEqual([100, 200, 400]);
    expect(h.lines[1]).toBe(
      'the webhooks service at h:1: DEADLINE_EXCEEDED; waiting 200 ms, then reading on from position 7 (failure 2 in a row).',
    );
  });

  it('waits the Retry-After a RESOURCE_EXHAUSTED names, and stops at one over a minute', async () => {
    const limited = { code: 'rate_limited', retryAfter: 3 };
    const h = harness([failed(status.RESOURCE_EXHAUSTED, limited), 'page']);
    expect(await h.result()).toBe('page');
    expect(h.waits).toEqual([3000]);

    const tooLong = failed(status.RESOURCE_EXHAUSTED, { code: 'rate_limited', retryAfter: 120 });
    const stopped = harness([tooLong]);
    await expect(stopped.result()).rejects.toBe(tooLong);
    expect(stopped.waits).toEqual([]);
    expect(stopped.lines).toEqual([
      'the webhooks service at h:1: RESOURCE_EXHAUSTED asking to wait 120 s, over a minute: stopping.',
    ]);
  });

  it.each([
    ['INVALID_ARGUMENT', failed(status.INVALID_ARGUMENT, { code: 'invalid_parameter' })],
    ['NOT_FOUND', failed(status.NOT_FOUND, { code: 'not_found' })],
    ['PERMISSION_DENIED', failed(status.PERMISSION_DENIED, { code: 'insufficient_permission' })],
    ['UNAUTHENTICATED', failed(status.UNAUTHENTICATED, { code: 'unauthenticated' })],
    ['FAILED_PRECONDITION', failed(status.FAILED_PRECONDITION, { code: 'cursor_expired' })],
    ['ABORTED', failed(status.ABORTED)],
    ['INTERNAL', failed(status.INTERNAL)],
  ])('stops at once on %s', async (_, err) => {
    const h = harness([err, 'page']);
    await expect(h.result()).rejects.toBe(err);
    expect(h.calls()).toBe(1);
    expect(h.waits).toEqual([]);
  });

  it('gives up once failures in a row would last over five minutes', async () => {
    const down = failed(status.UNAVAILABLE);
    const h = harness([down]);
    await expect(h.result()).rejects.toBe(down);
    const waited = h.waits.reduce((a, b) => a + b, 0);
    expect(waited).toBeLessThanOrEqual(OUTAGE_LIMIT_MS);
    expect(waited + 60_000).toBeGreaterThan(OUTAGE_LIMIT_MS);
    expect(h.lines.at(-1)).toBe(
      'the webhooks service at h:1: UNAVAILABLE for 5 min in a row: stopping.',
    );
  });

  it('answers nothing once stopped while waiting', async () => {
    const h = harness([failed(status.UNAVAILABLE), 'page']);
    h.stop.abort();
    expect(await h.result()).toBeUndefined();
  });
});

describe('OutageWatch (the API path: the client follower tells each wait)', () => {
  it('says each wait, starts the outage again after a read that answered, and stops past five minutes', () => {
    let clock = 0;
    const lines: string[] = [];
    const watch = new OutageWatch({
      notice: (line) => lines.push(line),
      peer: 'the API at u',
      position: () => 3,
      now: () => clock,
    });
    const down = new Error('503');
    watch.waiting(down, '503 service_unavailable', 1, 60_000);
    expect(lines).toEqual([
      'the API at u: 503 service_unavailable; waiting 60000 ms, then reading on from position 3 (failure 1 in a row).',
    ]);
    clock += 4 * 60_000;
    // an answer in between: the follower counts from 1 again, and so does the outage
    watch.waiting(down, '503 service_unavailable', 1, 60_000);
    clock += 4 * 60_000;
    watch.waiting(down, '503 service_unavailable', 2, 60_000);
    clock += 60_000;
    expect(() => watch.waiting(down, '503 service_unavailable', 3, 1)).toThrow(down);
    expect(lines.at(-1)).toBe(
      'the API at u: 503 service_unavailable for 5 min in a row: stopping.',
    );
  });
});

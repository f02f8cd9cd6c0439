import { retryRecording } from './retryRecording';

/** A clock that moves only when the code under test sleeps. */
function fakeClock() {
  let t = 0;
  const pauses: number[] = [];
  return {
    now: () => t,
    sleep: (ms: number) => {
      pauses.push(ms);
      t += ms;
      return Promise.resolve();
    },
    pauses,
  };
}

describe('retryRecording', () => {
  it('tries again after failures, with doubling pauses, until it succeeds', async () => {
    const clock = fakeClock();
    let tries = 0;
    const retried: unknown[] = [];
    const result = await retryRecording(
      () =>
        ++tries < 4 ? Promise.reject(new Error(`pool timeout ${tries}`)) : Promise.resolve('ok'),
      { giveUpAt: 60_000, abandoned: () => false, onRetry: (e) => retried.push(e), ...clock },
    );
    expect(result).toBe('ok');
    expect(tries).toBe(4);
    expect(clock.pauses).toEqual([100, 200, 400]);
    expect(retried).toHaveLength(3);
  });

  it('caps the pause at 2 s and throws the last failure once the next try would be too late', async () => {
    const clock = fakeClock();
    let tries = 0;
    await expect(
      retryRecording(() => Promise.reject(new Error(`failure ${++tries}`)), {
        giveUpAt: 7_000,
        abandoned: () => false,
        onRetry: () => undefined,
        ...clock,
      }),
    ).rejects.toThrow('failure 7');
    // 100+200+400+800+1600+2000 = 5100; the next 2 s pause would end at 7100 >= 7000
    expect(clock.pauses).toEqual([100, 200, 400, 800, 1600, 2000]);
    expect(tries).toBe(7);
  });

  it('stops at once when the worker has abandoned its attempts', async () => {
    const clock = fakeClock();
    let tries = 0;
    await expect(
      retryRecording(() => Promise.reject(new Error(`failure ${++tries}`)), {
        giveUpAt: 60_000,
        abandoned: () => true,
        onRetry: () => undefined,
        ...clock,
      }),
    ).rejects.toThrow('failure 1');
    expect(clock.pauses).toEqual([]);
  });
});

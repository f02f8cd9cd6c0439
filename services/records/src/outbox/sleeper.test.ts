import { createSleeper } from './sleeper';

const elapsed = async (p: Promise<void>): Promise<number> => {
  const started = Date.now();
  await p;
  return Date.now() - started;
};

describe('createSleeper', () => {
  it('sleeps the full time without a wake', async () => {
    expect(await elapsed(createSleeper().sleep(60, { wakeable: true }))).toBeGreaterThanOrEqual(50);
  });

  it('ends a wakeable sleep on wake()', async () => {
    const sleeper = createSleeper();
    const sleeping = sleeper.sleep(5_000, { wakeable: true });
    setTimeout(() => sleeper.wake(), 10);
    expect(await elapsed(sleeping)).toBeLessThan(1_000);
  });

  it('remembers a wake that came while busy, so a commit during a batch is not missed', async () => {
    const sleeper = createSleeper();
    sleeper.wake();
    expect(await elapsed(sleeper.sleep(5_000, { wakeable: true }))).toBeLessThan(100);
  });

  it('does not cut a backoff short on wake(), but cancel() ends any sleep', async () => {
    const sleeper = createSleeper();
    const backoff = sleeper.sleep(80, { wakeable: false });
    sleeper.wake();
    expect(await elapsed(backoff)).toBeGreaterThanOrEqual(70);
    const long = sleeper.sleep(5_000, { wakeable: false });
    sleeper.cancel();
    expect(await elapsed(long)).toBeLessThan(100);
    expect(await elapsed(sleeper.sleep(5_000, { wakeable: true }))).toBeLessThan(100);
  });
});

import { UsageSurface } from '@brand/proto/access/v1/usage';
import { AppError } from '@brand/shared/errors';
import { createLogger } from '@brand/shared/logger';
import { UsageBuffer } from './usageBuffer';
import { USAGE_BATCH_RETAIN_MS, UsageFlusher } from './usageFlusher';

const REST = UsageSurface.USAGE_SURFACE_REST;
const log = createLogger({ service: 'test', level: 'silent' });

function setup(failures: number, maxAttempts = 3, error = () => new Error('records unavailable')) {
  const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 10 });
  const sent: { batch_id: string; total: number }[] = [];
  const tried: string[] = [];
  const dropped: number[] = [];
  let failing = failures;
  const clock = { now: 1_000_000 };
  const flusher = new UsageFlusher({
    buffer,
    log,
    intervalMs: 60_000,
    maxAttempts,
    now: () => clock.now,
    send: (batch) => {
      tried.push(batch.batch_id);
      const total = batch.counts.reduce((n, c) => n + c.count, 0);
      if (failing > 0) {
        failing -= 1;
        return Promise.reject(error());
      }
      sent.push({ batch_id: batch.batch_id, total });
      return Promise.resolve();
    },
    onDropBatch: (counts) => dropped.push(counts),
  });
  const count = (n: number) => buffer.count('key_1', 'br_a', 'key_1', '', '', 1, REST, '2xx', n);
  return { flusher, sent, tried, dropped, count, clock };
}

describe('UsageFlusher', () => {
  it('sends nothing when nothing was counted, and one batch of sums otherwise', async () => {
    const { flusher, sent, count } = setup(0);
    await flusher.flush();
    expect(sent).toEqual([]);
    count(2);
    count(3);
    await flusher.flush();
    expect(sent.map((s) => s.total)).toEqual([5]);
  });

  it('retries a failed batch with the same id before the next one', async () => {
    const { flusher, sent, tried, dropped, count } = setup(1);
    count(4);
    await flusher.flush(); // fails: kept
    count(6);
    await flusher.flush(); // the kept batch again, then the new counts
    expect(sent.map((s) => s.total)).toEqual([4, 6]);
    expect(tried[0]).toBe(tried[1]);
    expect(tried[2]).not.toBe(tried[1]);
    expect(dropped).toEqual([]);
  });

  it('drops at once, and counts, a batch records rejects as invalid (no retry mends it)', async () => {
    const { flusher, sent, dropped, count } = setup(
      1,
      3,
      () => new AppError('validation_failed', 'The usage batch is not valid'),
    );
    count(7);
    await flusher.flush(); // rejected: dropped, so it blocks nothing behind it
    expect(dropped).toEqual([7]);
    count(1);
    await flusher.flush();
    expect(sent.map((s) => s.total)).toEqual([1]);
  });

  it('drops a kept batch once it is older than its retry bound, and counts what it held', async () => {
    const { flusher, sent, dropped, count, clock } = setup(1_000, 3);
    count(7);
    await flusher.flush();
    clock.now += USAGE_BATCH_RETAIN_MS - 1;
    await flusher.flush(); // still kept
    expect(dropped).toEqual([]);
    clock.now += 1;
    await flusher.flush(); // 12 hours: dropped
    expect(dropped).toEqual([7]);
    expect(sent).toEqual([]);
  });

  it('keeps a batch that keeps failing and sends it, under its id, once records is back', async () => {
    const { flusher, sent, tried, dropped, count } = setup(5, 3);
    count(7);
    for (let i = 0; i < 5; i += 1) await flusher.flush(); // five failures: kept
    count(2);
    await flusher.flush(); // the kept batch, then what came since
    expect(sent.map((s) => s.total)).toEqual([7, 2]);
    expect(new Set(tried.slice(0, 6)).size).toBe(1);
    expect(dropped).toEqual([]);
  });

  it('flushes what it holds when stopped (SIGTERM)', async () => {
    const { flusher, sent, count } = setup(0);
    flusher.start();
    count(9);
    await flusher.stop();
    expect(sent.map((s) => s.total)).toEqual([9]);
  });
});

import { UsageSurface } from '@brand/proto/access/v1/usage';
import { createLogger } from '@brand/shared/logger';
import { UsageBuffer } from './usageBuffer';
import { UsageFlusher } from './usageFlusher';

const REST = UsageSurface.USAGE_SURFACE_REST;
const log = createLogger({ service: 'test', level: 'silent' });

function setup(failures: number, maxAttempts = 3) {
  const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 10 });
  const sent: { batch_id: string; total: number }[] = [];
  const tried: string[] = [];
  const dropped: number[] = [];
  let failing = failures;
  const flusher = new UsageFlusher({
    buffer,
    log,
    intervalMs: 60_000,
    maxAttempts,
    send: (batch) => {
      tried.push(batch.batch_id);
      const total = batch.counts.reduce((n, c) => n + c.count, 0);
      if (failing > 0) {
        failing -= 1;
        return Promise.reject(new Error('records unavailable'));
      }
      sent.push({ batch_id: batch.batch_id, total });
      return Promise.resolve();
    },
    onDropBatch: (counts) => dropped.push(counts),
  });
  const count = (n: number) => buffer.count('key_1', 'br_a', 'key_1', '', '', 1, REST, '2xx', n);
  return { flusher, sent, tried, dropped, count };
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

  it('drops a batch after its attempts and counts what it held', async () => {
    const { flusher, sent, dropped, count } = setup(2, 2);
    count(7);
    await flusher.flush();
    await flusher.flush(); // second failure: dropped
    expect(dropped).toEqual([7]);
    count(1);
    await flusher.flush();
    expect(sent.map((s) => s.total)).toEqual([1]);
  });

  it('flushes what it holds when stopped (SIGTERM)', async () => {
    const { flusher, sent, count } = setup(0);
    flusher.start();
    count(9);
    await flusher.stop();
    expect(sent.map((s) => s.total)).toEqual([9]);
  });
});

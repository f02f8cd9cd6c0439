import type { AttemptRecord } from './attemptRepo';
import { SuccessBatcher } from './successBatcher';

const attempt = (deliveryId: string): AttemptRecord => ({
  eventAt: '2026-11-25T10:00:00.000000Z',
  deliveryId,
  receiverId: 'whr_1',
  number: 1,
  startedAt: new Date(0),
  durationMs: 5,
  statusCode: 204,
  errorClass: null,
  errorMessage: null,
  excerpt: null,
  test: false,
  healthClass: null,
  latencySlot: 1,
  requestHeaders: [],
  response: undefined,
});

/** A writer whose writes finish when the test says so; it records every batch it got. */
function heldWriter() {
  const batches: string[][] = [];
  const pending: Array<{ finish: () => void; fail: (err: unknown) => void }> = [];
  const write = (attempts: AttemptRecord[]) =>
    new Promise<void>((finish, fail) => {
      batches.push(attempts.map((a) => a.deliveryId));
      pending.push({ finish, fail });
    });
  return { batches, pending, write };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('SuccessBatcher', () => {
  it('writes the first success at once and those that came meanwhile together', async () => {
    const w = heldWriter();
    const batcher = new SuccessBatcher(w.write);
    const first = batcher.record(attempt('d1'));
    const later = [batcher.record(attempt('d2')), batcher.record(attempt('d3'))];
    await settled();
    expect(w.batches).toEqual([['d1']]);
    w.pending[0]!.finish();
    await first;
    await settled();
    expect(w.batches).toEqual([['d1'], ['d2', 'd3']]);
    w.pending[1]!.finish();
    await Promise.all(later);
  });

  it('keeps a batch under its maximum', async () => {
    const w = heldWriter();
    const batcher = new SuccessBatcher(w.write, { maxBatch: 2 });
    const all = ['a', 'b', 'c', 'd'].map((id) => batcher.record(attempt(id)));
    for (let i = 0; i < 3; i++) {
      await settled();
      w.pending[i]!.finish();
    }
    await Promise.all(all);
    expect(w.batches).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('fails the whole batch when the database fails it', async () => {
    const w = heldWriter();
    const batcher = new SuccessBatcher(w.write);
    const first = batcher.record(attempt('d1'));
    const rest = [batcher.record(attempt('d2')), batcher.record(attempt('d3'))];
    await settled();
    w.pending[0]!.finish();
    await first;
    await settled();
    const unreachable = Object.assign(new Error('connection terminated'), { code: '57P01' });
    w.pending[1]!.fail(unreachable);
    for (const r of rest) await expect(r).rejects.toBe(unreachable);
    expect(w.batches).toHaveLength(2); // not written one by one: the next try batches again
  });

  it('writes each alone after a row error, so only the bad row fails', async () => {
    const bad = Object.assign(new Error('violates foreign key constraint'), { code: '23503' });
    const batches: string[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const batcher = new SuccessBatcher(async (attempts) => {
      batches.push(attempts.map((a) => a.deliveryId));
      if (batches.length === 1) return gate; // holds the first write so the rest gather
      if (attempts.some((a) => a.deliveryId === 'bad')) throw bad;
    });
    const first = batcher.record(attempt('d1'));
    const good = batcher.record(attempt('d2'));
    const poisoned = batcher.record(attempt('bad'));
    const alsoGood = batcher.record(attempt('d3'));
    release();
    await first;
    await expect(good).resolves.toBeUndefined();
    await expect(alsoGood).resolves.toBeUndefined();
    await expect(poisoned).rejects.toBe(bad);
    expect(batches).toEqual([['d1'], ['d2', 'bad', 'd3'], ['d2'], ['bad'], ['d3']]);
  });

  describe('gathering while busy', () => {
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const gathering = (
      w: ReturnType<typeof heldWriter>,
      gatherMs: number,
      gatherTarget: number,
      busy: boolean,
    ) => new SuccessBatcher(w.write, { gatherMs, gatherTarget, busy: () => busy });

    it('waits gatherMs for others when busy, then writes them in one statement', async () => {
      const w = heldWriter();
      const batcher = gathering(w, 40, 10, true);
      const all = [batcher.record(attempt('d1'))];
      await settled();
      expect(w.batches).toEqual([]);
      all.push(batcher.record(attempt('d2')), batcher.record(attempt('d3')));
      await pause(80);
      expect(w.batches).toEqual([['d1', 'd2', 'd3']]);
      w.pending[0]!.finish();
      await Promise.all(all);
    });

    it('writes at once when the target has gathered', async () => {
      const w = heldWriter();
      const batcher = gathering(w, 10_000, 3, true);
      const all = ['a', 'b', 'c'].map((id) => batcher.record(attempt(id)));
      await settled();
      expect(w.batches).toEqual([['a', 'b', 'c']]);
      w.pending[0]!.finish();
      await Promise.all(all);
    });

    it('does not wait when the worker is not busy', async () => {
      const w = heldWriter();
      const batcher = gathering(w, 10_000, 3, false);
      const first = batcher.record(attempt('d1'));
      await settled();
      expect(w.batches).toEqual([['d1']]);
      w.pending[0]!.finish();
      await first;
    });
  });
});

import { GroupCommit } from './groupCommit';

/** An item to write (an attempt, a chunk of messages: the class does not look inside). */
interface Item {
  deliveryId: string;
}
const attempt = (deliveryId: string): Item => ({ deliveryId });

/** A writer whose writes finish when the test says so; it records every batch it got. */
function heldWriter() {
  const batches: string[][] = [];
  const pending: Array<{ finish: () => void; fail: (err: unknown) => void }> = [];
  const write = (attempts: Item[]) =>
    new Promise<void>((finish, fail) => {
      batches.push(attempts.map((a) => a.deliveryId));
      pending.push({ finish, fail });
    });
  return { batches, pending, write };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('writes the first success at once and those that came meanwhile together', async () => {
    const w = heldWriter();
    const batcher = new GroupCommit<Item>(w.write);
    const first = batcher.add(attempt('d1'));
    const later = [batcher.add(attempt('d2')), batcher.add(attempt('d3'))];
    await settled();
    expect(w.batches).toEqual([['d1']]);
    w.pending[0]!.finish();
    await first;
    await settled();
    expect(w.batches).toEqual([['d1'], ['d2', 'd3']]);
    w.pending[1]!.finish();
    await Promise.all(later);
  });

  it("settles each item with the write's result for it", async () => {
    const batches: string[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const group = new GroupCommit<Item, string>(async (items) => {
      batches.push(items.map((i) => i.deliveryId));
      if (batches.length === 1) await gate; // holds the first write so the rest gather
      return items.map((i) => `stored ${i.deliveryId}`);
    });
    const results = ['a', 'b', 'c'].map((id) => group.add(attempt(id)));
    release();
    await expect(Promise.all(results)).resolves.toEqual(['stored a', 'stored b', 'stored c']);
    expect(batches).toEqual([['a'], ['b', 'c']]);
  });

  it('with sameTurn, writes the items added in one turn of the event loop together', async () => {
    const w = heldWriter();
    const group = new GroupCommit<Item>(w.write, { sameTurn: true });
    const all = ['a', 'b', 'c'].map((id) => group.add(attempt(id)));
    expect(w.batches).toEqual([]); // nothing written within the turn
    await settled();
    expect(w.batches).toEqual([['a', 'b', 'c']]);
    w.pending[0]!.finish();
    await Promise.all(all);
  });

  it('keeps a batch under its maximum', async () => {
    const w = heldWriter();
    const batcher = new GroupCommit<Item>(w.write, { maxBatch: 2 });
    const all = ['a', 'b', 'c', 'd'].map((id) => batcher.add(attempt(id)));
    for (let i = 0; i < 3; i++) {
      await settled();
      w.pending[i]!.finish();
    }
    await Promise.all(all);
    expect(w.batches).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('fails the whole batch when the database fails it', async () => {
    const w = heldWriter();
    const batcher = new GroupCommit<Item>(w.write);
    const first = batcher.add(attempt('d1'));
    const rest = [batcher.add(attempt('d2')), batcher.add(attempt('d3'))];
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
    const batcher = new GroupCommit<Item>(async (attempts) => {
      batches.push(attempts.map((a) => a.deliveryId));
      if (batches.length === 1) return gate; // holds the first write so the rest gather
      if (attempts.some((a) => a.deliveryId === 'bad')) throw bad;
    });
    const first = batcher.add(attempt('d1'));
    const good = batcher.add(attempt('d2'));
    const poisoned = batcher.add(attempt('bad'));
    const alsoGood = batcher.add(attempt('d3'));
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
    ) => new GroupCommit<Item>(w.write, { gatherMs, gatherTarget, busy: () => busy });

    it('waits gatherMs for others when busy, then writes them in one statement', async () => {
      const w = heldWriter();
      const batcher = gathering(w, 40, 10, true);
      const all = [batcher.add(attempt('d1'))];
      await settled();
      expect(w.batches).toEqual([]);
      all.push(batcher.add(attempt('d2')), batcher.add(attempt('d3')));
      await pause(80);
      expect(w.batches).toEqual([['d1', 'd2', 'd3']]);
      w.pending[0]!.finish();
      await Promise.all(all);
    });

    it('writes at once when the target has gathered', async () => {
      const w = heldWriter();
      const batcher = gathering(w, 10_000, 3, true);
      const all = ['a', 'b', 'c'].map((id) => batcher.add(attempt(id)));
      await settled();
      expect(w.batches).toEqual([['a', 'b', 'c']]);
      w.pending[0]!.finish();
      await Promise.all(all);
    });

    it('does not wait when the worker is not busy', async () => {
      const w = heldWriter();
      const batcher = gathering(w, 10_000, 3, false);
      const first = batcher.add(attempt('d1'));
      await settled();
      expect(w.batches).toEqual([['d1']]);
      w.pending[0]!.finish();
      await first;
    });
  });
});

import { limitsAfterSuccess, limitsAfterTooLarge, limitsForRun, type RunLimits } from './runSize';

/**
 * A drain of `backlog` entries as batchRepo.ts runs it (a run at a time; a refused run of 2+
 * halved at once; the next run opened after a success), against a destination that takes a
 * run when `takes(from, entries)`. Returns each request: entries taken, or minus the entries
 * refused.
 */
function drain(
  backlog: number,
  max: number,
  takes: (from: number, entries: number) => boolean,
): number[] {
  const requests: number[] = [];
  let sent = 0;
  let limits: RunLimits | undefined;
  while (sent < backlog) {
    limits = limitsForRun(limits, backlog - sent, max);
    const entries = Math.min(limits?.cap ?? max, max, backlog - sent);
    // a single entry refused goes the ordinary way (retries, set aside): not modelled here
    if (!takes(sent, entries) && entries > 1) {
      requests.push(-entries);
      limits = limitsAfterTooLarge(entries, limits);
      continue;
    }
    requests.push(entries);
    sent += entries;
    if (limits) limits = limitsAfterSuccess(limits);
  }
  return requests;
}

const refusals = (requests: number[]) => requests.filter((r) => r < 0).length;

it('a limit that stays below a full run: a few 413s in a long drain, then runs just under it', () => {
  const requests = drain(300, 16, (_, n) => n <= 6);
  // halving 16 → 8 → 4, the climb 4, 6, 7 (refused), and the one try of 7 again
  expect(requests.slice(0, 12)).toEqual([-16, -8, 4, 6, -7, 4, 5, 6, -7, 4, 5, 6]);
  expect(refusals(requests)).toBe(4);
  // the last run carries what is left
  expect(requests.slice(12, -1).every((n) => n === 6)).toBe(true);
});

it.each([16, 100])(
  'whatever entries the limit lets through, a drain of a max of %i sees few 413s',
  (max) => {
    const bound = Math.ceil(Math.log2(max)) + 2;
    const over: Array<{ limit: number; refused: number }> = [];
    for (let limit = 1; limit < max; limit++) {
      const requests = drain(30 * max, max, (_, n) => n <= limit);
      if (refusals(requests) > bound) over.push({ limit, refused: refusals(requests) });
      expect(requests.filter((r) => r > 0).reduce((a, b) => a + b)).toBe(30 * max);
    }
    expect(over).toEqual([]);
  },
);

it('entries of different sizes: a limit in bytes is refused rarely, every entry taken once', () => {
  // sizes 300-420 bytes by a fixed pattern, a limit of 2,300 bytes (5 to 7 entries)
  const size = (k: number) => 300 + ((k * 37) % 121);
  const bytes = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => size(from + i)).reduce((a, b) => a + b);
  const requests = drain(3000, 100, (from, n) => bytes(from, n) <= 2_300);
  const taken = requests.filter((r) => r > 0);
  expect(taken.reduce((a, b) => a + b)).toBe(3000);
  // before: a 413 about every other run (753 here); now 6
  expect(refusals(requests)).toBeLessThanOrEqual(8);
});

it('a limit that passes: one try of the refused size, then doubling back to the full size', () => {
  let limit = 1;
  const requests = drain(60, 16, (_, n) => {
    const ok = n <= limit;
    if (ok) limit = Infinity;
    return ok;
  });
  expect(requests.slice(0, 9)).toEqual([-16, -8, -4, -2, 1, 2, 4, 8, 16]);
});

it('the refused size tried again and refused: not tried again in this drain', () => {
  const atTry = limitsAfterSuccess({ cap: 6, refused: 7 });
  expect(atTry).toEqual({ cap: 7, refused: 7 });
  const settled = limitsAfterTooLarge(7, atTry);
  expect(settled).toEqual({ cap: 4, refused: 7, settled: true });
  expect(limitsAfterSuccess({ cap: 6, refused: 7, settled: true })).toEqual({
    cap: 6,
    refused: 7,
    settled: true,
  });
  // a run of larger entries refused below it lowers the memory
  expect(limitsAfterTooLarge(6, { cap: 6, refused: 7, settled: true })).toEqual({
    cap: 3,
    refused: 6,
    settled: true,
  });
});

it('the memory lasts one drain: forgotten once fewer entries wait than the cap allows', () => {
  const held = { cap: 6, refused: 7, settled: true };
  expect(limitsForRun(held, 6, 16)).toBe(held);
  expect(limitsForRun(held, 5, 16)).toEqual({ cap: 6 });
  expect(limitsForRun({ cap: 16 }, 100, 16)).toBeUndefined();
  // the try of the refused size at the full size keeps its cap: its outcome needs it
  expect(limitsForRun({ cap: 16, refused: 16 }, 100, 16)).toEqual({ cap: 16, refused: 16 });
  expect(limitsForRun(undefined, 100, 16)).toBeUndefined();
});

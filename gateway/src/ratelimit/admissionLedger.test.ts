import { AdmissionLedger } from './admissionLedger';

/** A ledger on a hand-driven clock: `at(ms)` sets the time every later call sees. */
function ledgerAt(maxKeys = 100) {
  let now = 1_000_000;
  const start = now;
  const ledger = new AdmissionLedger({ maxKeys, now: () => now });
  return {
    ledger,
    at(ms: number): number {
      now = start + ms;
      return now;
    },
  };
}

describe('AdmissionLedger', () => {
  it('holds what was admitted in the window, oldest first, and drops each unit as it leaves', () => {
    const { ledger, at } = ledgerAt();
    ledger.record('brand:b1', 'g:1', 1, at(0), 'shared');
    ledger.record('brand:b1', 'g:2', 2, at(10_000), 'local');
    ledger.record('brand:b2', 'g:3', 1, at(20_000), 'shared');
    expect(ledger.times('brand:b1')).toHaveLength(3);
    expect(ledger.seeds('brand:b1')).toMatchObject({
      members: ['g:1:1', 'g:2:1', 'g:2:2'],
      agesMs: [20_000, 10_000, 10_000],
    });
    // a unit admitted at t counts until t + 60 s, exclusive, as in the Redis script
    at(59_999);
    expect(ledger.times('brand:b1')).toHaveLength(3);
    at(60_000);
    expect(ledger.seeds('brand:b1').members).toEqual(['g:2:1', 'g:2:2']);
    at(70_000);
    expect(ledger.times('brand:b1')).toEqual([]);
    expect(ledger.seeds('brand:b1')).toEqual({ members: [], agesMs: [], version: 0 });
    expect(ledger.times('brand:b2')).toHaveLength(1);
  });

  // A review (2026-11-29): one LRU for every budget let requests from many new addresses evict
  // a brand's admissions; a Redis restart then let the brand spend its window again.
  it('keeps a brand’s admissions however many client addresses come by', () => {
    const { ledger, at } = ledgerAt(100);
    ledger.record('brand:b1', 'g:1', 60, at(0), 'shared');
    for (let i = 0; i < 1_000; i++)
      ledger.record(`addr:198.51.${i >> 8}.${i & 255}`, `a:${i}`, 1, at(1), 'shared');
    expect(ledger.times('brand:b1')).toHaveLength(60);
    expect(ledger.seeds('brand:b1').members).toHaveLength(60);
    // the addresses' own LRU is bounded as before
    expect(ledger.times('addr:198.51.0.0')).toEqual([]);
    expect(ledger.times('addr:198.51.3.231')).toHaveLength(1);
  });

  it('mints member names unique per call and per instance', () => {
    const a = ledgerAt().ledger;
    const b = ledgerAt().ledger;
    const names = [a.mint(), a.mint(), b.mint(), b.mint()];
    expect(new Set(names).size).toBe(4);
    for (const n of names) expect(n).toMatch(/^[0-9A-Za-z]{8}:\d+$/);
  });

  it('gives back the names it minted, unit by unit, for re-seeding Redis', () => {
    const { ledger, at } = ledgerAt();
    const first = ledger.mint();
    const second = ledger.mint();
    const [t0, t1, t2] = [at(0), at(5_000), at(6_000)];
    ledger.record('brand:b1', first, 2, t0, 'shared');
    ledger.record('brand:b1', second, 1, t1, 'local');
    ledger.record('brand:b1', 'other:7', 1, t2, 'shared');
    expect(ledger.seeds('brand:b1')).toMatchObject({
      members: [`${first}:1`, `${first}:2`, `${second}:1`, 'other:7:1'],
      agesMs: [6_000, 6_000, 1_000, 0],
    });
    expect(ledger.times('brand:b1')).toEqual([t0, t0, t1, t2]);
    ledger.refund('brand:b1', first, 2);
    expect(ledger.seeds('brand:b1').members).toEqual([`${second}:1`, 'other:7:1']);
  });

  it('refund forgets exactly the units of one reservation', () => {
    const { ledger, at } = ledgerAt();
    ledger.record('addr:x', 'g:1', 1, at(0), 'shared');
    ledger.record('addr:x', 'g:2', 3, at(1_000), 'shared');
    ledger.record('addr:x', 'g:3', 1, at(2_000), 'shared');
    ledger.refund('addr:x', 'g:2', 3);
    expect(ledger.seeds('addr:x').members).toEqual(['g:1:1', 'g:3:1']);
    ledger.refund('addr:x', 'g:404', 1);
    ledger.refund('addr:none', 'g:1', 1);
    expect(ledger.times('addr:x')).toHaveLength(2);
  });

  it('a budget is synced only under the epoch marked, and a fallback admission unsyncs it', () => {
    const { ledger, at } = ledgerAt();
    expect(ledger.isSynced('brand:b1', undefined)).toBe(false);
    expect(ledger.isSynced('brand:b1', 'e1')).toBe(false);
    ledger.record('brand:b1', 'g:1', 1, at(0), 'shared');
    ledger.markSynced('brand:b1', 'e1', ledger.seeds('brand:b1').version);
    expect(ledger.isSynced('brand:b1', 'e1')).toBe(true);
    // a new epoch means Redis restarted: what it held under e1 is gone
    expect(ledger.isSynced('brand:b1', 'e2')).toBe(false);
    // admissions Redis decided keep the mark; one the fallback decided removes it
    ledger.record('brand:b1', 'g:2', 1, at(1_000), 'shared');
    expect(ledger.isSynced('brand:b1', 'e1')).toBe(true);
    ledger.record('brand:b1', 'g:3', 1, at(2_000), 'local');
    expect(ledger.isSynced('brand:b1', 'e1')).toBe(false);
  });

  it('ignores a sync mark taken before a later fallback admission (seeds in flight)', () => {
    const { ledger, at } = ledgerAt();
    ledger.record('brand:b1', 'g:1', 1, at(0), 'local');
    const seeds = ledger.seeds('brand:b1');
    ledger.record('brand:b1', 'g:2', 1, at(500), 'local');
    ledger.markSynced('brand:b1', 'e1', seeds.version);
    expect(ledger.isSynced('brand:b1', 'e1')).toBe(false);
    ledger.markSynced('brand:b1', 'e1', ledger.seeds('brand:b1').version);
    expect(ledger.isSynced('brand:b1', 'e1')).toBe(true);
  });

  it('forgets an emptied budget, and with it its sync mark', () => {
    const { ledger, at } = ledgerAt();
    ledger.record('brand:b1', 'g:1', 1, at(0), 'shared');
    ledger.markSynced('brand:b1', 'e1', 0);
    at(60_000);
    expect(ledger.isSynced('brand:b1', 'e1')).toBe(false);
    expect(ledger.seeds('brand:b1').members).toEqual([]);
  });

  it('is bounded: past maxKeys the least recently used budget is forgotten', () => {
    const { ledger, at } = ledgerAt(2);
    ledger.record('a', 'g:1', 1, at(0), 'shared');
    ledger.record('b', 'g:2', 1, at(0), 'shared');
    expect(ledger.times('a')).toHaveLength(1);
    ledger.record('c', 'g:3', 1, at(0), 'shared');
    expect(ledger.times('b')).toEqual([]);
    expect(ledger.times('a')).toHaveLength(1);
    expect(ledger.times('c')).toHaveLength(1);
  });

  it('stays exact for a busy budget while dropping expired units in batches', () => {
    const { ledger, at } = ledgerAt();
    // 1,000 units a second for 3 minutes: three windows' worth pass through one budget
    for (let ms = 0; ms < 180_000; ms += 1) {
      ledger.record('brand:busy', `g:${ms}`, 1, at(ms), 'shared');
      if (ms % 10_007 === 0)
        expect(ledger.times('brand:busy')).toHaveLength(Math.min(ms + 1, 60_000));
    }
    const seeds = ledger.seeds('brand:busy');
    expect(seeds.members).toHaveLength(60_000);
    expect(seeds.members[0]).toBe('g:120000:1');
    ledger.refund('brand:busy', 'g:5', 1); // long expired: nothing to forget
    ledger.refund('brand:busy', 'g:179999', 1);
    expect(ledger.times('brand:busy')).toHaveLength(59_999);
  });

  it('ignores a record of no units', () => {
    const { ledger, at } = ledgerAt();
    ledger.record('brand:b1', 'g:1', 0, at(0), 'local');
    expect(ledger.times('brand:b1')).toEqual([]);
  });

  it("keeps a lease's units, counted from the end of its span, in order, with a negative age until then", () => {
    const { ledger, at } = ledgerAt();
    const t0 = at(0);
    // a call at 0 leased 3 units, counted from 1 s on; admissions at 100 and 200 ms came after
    ledger.record('brand:b1', 'g:1', 1, t0, 'shared');
    ledger.record('brand:b1', 'g:2', 3, t0 + 1_000, 'shared');
    ledger.record('brand:b1', 'g:3', 1, at(100), 'shared');
    ledger.record('brand:b1', 'g:4', 1, at(200), 'shared');
    expect(ledger.times('brand:b1')).toEqual([
      t0,
      t0 + 100,
      t0 + 200,
      t0 + 1_000,
      t0 + 1_000,
      t0 + 1_000,
    ]);
    expect(ledger.seeds('brand:b1')).toMatchObject({
      members: ['g:1:1', 'g:3:1', 'g:4:1', 'g:2:1', 'g:2:2', 'g:2:3'],
      agesMs: [200, 100, 0, -800, -800, -800],
    });
    // counted until 61 s, the lease's units stay after the others left
    at(60_500);
    expect(ledger.seeds('brand:b1').members).toEqual(['g:2:1', 'g:2:2', 'g:2:3']);
    at(61_000);
    expect(ledger.times('brand:b1')).toEqual([]);
  });

  it('shrinks a lease to the units handed out, and forgets one of which none was', () => {
    const { ledger, at } = ledgerAt();
    ledger.record('brand:b1', 'g:1', 5, at(1_000), 'shared');
    ledger.record('brand:b1', 'g:2', 4, at(2_000), 'shared');
    ledger.shrink('brand:b1', 'g:1', 2);
    ledger.shrink('brand:b1', 'g:2', 0);
    expect(ledger.seeds('brand:b1').members).toEqual(['g:1:1', 'g:1:2']);
    // never grows a reservation
    ledger.shrink('brand:b1', 'g:1', 4);
    expect(ledger.times('brand:b1')).toHaveLength(2);
  });
});

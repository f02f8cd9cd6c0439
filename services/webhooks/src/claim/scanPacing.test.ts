import { ScanPacing } from './scanPacing';

/**
 * The worker scans the table at every turn until its consumer feeds it; once fed, every
 * `pollMs`, and at once while anything may be in the table that the feed does not hold.
 */
function pacing(pollMs = 1_000): { p: ScanPacing; advance: (ms: number) => void } {
  let now = 10_000;
  const p = new ScanPacing(pollMs, () => now);
  return { p, advance: (ms) => (now += ms) };
}

const complete = { complete: true, scanned: () => true };

describe('scan pacing', () => {
  it('scans at every turn while no consumer feeds the worker', () => {
    const { p } = pacing();
    for (let turn = 0; turn < 3; turn++) {
      expect(p.due()).toBe(true);
      p.started();
      p.found(new Set(), [], complete);
    }
  });

  it('once fed, scans every pollMs and sleeps until then', () => {
    const { p, advance } = pacing(1_000);
    p.markFed();
    expect(p.due()).toBe(true); // the first scan: nothing known yet
    p.started();
    expect(p.due()).toBe(false);
    advance(400);
    expect(p.untilNextMs()).toBe(600);
    expect(p.due()).toBe(false);
    advance(600);
    expect(p.untilNextMs()).toBe(0);
    expect(p.due()).toBe(true);
  });

  it('scans at once after a failed claim or a drop from the feed, then paces again', () => {
    const { p } = pacing();
    p.markFed();
    p.started();
    expect(p.due()).toBe(false);
    p.want();
    expect(p.due()).toBe(true);
    p.started();
    expect(p.due()).toBe(false);
  });

  it('scans at every turn while a receiver has a backlog, until a complete scan finds it drained', () => {
    const { p } = pacing();
    p.markFed();
    p.started();
    p.found(new Set(['rcv_a']), ['rcv_a'], complete); // rows the feed did not hold
    expect(p.backlogged()).toEqual(['rcv_a']);
    expect(p.due()).toBe(true);

    p.started();
    p.found(new Set(['rcv_a']), [], complete); // still finds rows of it (fed ones)
    expect(p.due()).toBe(true);

    p.started();
    p.found(new Set(), [], complete); // found nothing of it: drained
    expect(p.backlogged()).toEqual([]);
    expect(p.due()).toBe(false);
  });

  it('keeps a backlog when the scan reached its limit or did not look at the receiver', () => {
    const { p } = pacing();
    p.markFed();
    p.addBacklog('rcv_a'); // a 2xx after failures: its waiting deliveries are due now
    p.started();
    p.found(new Set(), [], { complete: false, scanned: () => true });
    expect(p.backlogged()).toEqual(['rcv_a']);
    p.started();
    p.found(new Set(), [], { complete: true, scanned: (id) => id !== 'rcv_a' });
    expect(p.backlogged()).toEqual(['rcv_a']);
    expect(p.due()).toBe(true);
  });
});

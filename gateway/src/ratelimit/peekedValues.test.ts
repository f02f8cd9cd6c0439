import { LEASE_SPAN_MS } from './admissionLeases';
import { PeekedValues } from './peekedValues';

describe('PeekedValues', () => {
  it('lends a value read along only while younger than a span, and never one Redis lacked', () => {
    const peeks = new PeekedValues({ maxKeys: 10 });
    peeks.read(['rv:b1:links', 'rv:b1:posts'], ['7', null], 1_000);
    expect(peeks.usable('rv:b1:links', 1_000 + LEASE_SPAN_MS - 1)).toBe('7');
    expect(peeks.usable('rv:b1:links', 1_000 + LEASE_SPAN_MS)).toBeUndefined();
    expect(peeks.usable('rv:b1:posts', 1_001)).toBeUndefined();
    expect(peeks.usable('rv:b1:payouts', 1_001)).toBeUndefined();
  });

  it("has a lease call read the request's key first, then the budget's other recent keys", () => {
    const peeks = new PeekedValues({ maxKeys: 10 });
    peeks.note('brand:b1', 'rv:b1:links', 0);
    peeks.note('brand:b1', 'rv:b1:posts', 100);
    peeks.note('brand:b2', 'rv:b2:links', 100);
    expect(peeks.toRead('brand:b1', 'rv:b1:posts', 200, true)).toEqual([
      'rv:b1:posts',
      'rv:b1:links',
    ]);
    // a call that asks for no lease reads its own key only
    expect(peeks.toRead('brand:b1', 'rv:b1:posts', 200, false)).toEqual(['rv:b1:posts']);
    // keys not read for four spans are left out
    expect(peeks.toRead('brand:b1', undefined, 4 * LEASE_SPAN_MS + 50, true)).toEqual([
      'rv:b1:posts',
    ]);
  });
});

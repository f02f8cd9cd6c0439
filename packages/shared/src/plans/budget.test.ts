import fc from 'fast-check';
import { formatCentavos, MAX_PLANNING_BUDGET_CENTAVOS, parseBudget } from './budget';

describe('parseBudget', () => {
  it.each<[number | string, number]>([
    [25000.5, 2_500_050],
    ['25000.5', 2_500_050],
    ['25000.50', 2_500_050],
    [25000, 2_500_000],
    ['0.01', 1],
    [0.1, 10],
    [1.15, 115],
    ['100000000.00', MAX_PLANNING_BUDGET_CENTAVOS],
  ])('reads %p as %p centavos, exactly', (value, centavos) => {
    expect(parseBudget(value)).toEqual({ ok: true, centavos });
  });

  // What the docs say of a JSON number: the rule holds of the double JSON.parse made of it.
  it.each<[string, number]>([
    ['1e2', 10_000],
    ['25000.500', 2_500_050],
    ['25000.499999999999999', 2_500_050],
  ])('reads the JSON number %s as the double it parses to: %p centavos', (json, centavos) => {
    expect(parseBudget(JSON.parse(json) as number)).toEqual({ ok: true, centavos });
  });

  it.each<[number | string, RegExp]>([
    [0, /positive/],
    ['0.00', /positive/],
    [-5, /positive/],
    ['-5', /positive/],
    [1.005, /two decimals/],
    ['25000.505', /two decimals/],
    [1e21, /exponent/],
    ['1e3', /exponent/],
    [Number.NaN, /finite/],
    [Number.POSITIVE_INFINITY, /finite/],
    ['', /PHP amount/],
    [' 5', /PHP amount/],
    ['5.', /PHP amount/],
    ['.5', /PHP amount/],
    ['1,000', /PHP amount/],
    ['100000000.01', /at most/],
    ['99999999999999999999', /at most/],
  ])('refuses %p', (value, message) => {
    const r = parseBudget(value);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('round-trips every centavo amount through its two-decimal text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_PLANNING_BUDGET_CENTAVOS }), (centavos) => {
        expect(parseBudget(formatCentavos(centavos))).toEqual({ ok: true, centavos });
      }),
    );
  });
});

import { AdmissionLeases, LEASE_SPAN_MS } from './admissionLeases';

const ENTERPRISE = 240;
const SCALED = 240_000;

/** A lease as the Redis limiter hands it over after a call sent at `sentAt`. */
const lease = (units: number, limit = SCALED, member = 'g:1') => ({
  member,
  units,
  limit,
  remaining: 1_000,
  resetMs: 60_000,
});

describe('AdmissionLeases', () => {
  it("asks for no lease for a budget with no demand, nor for one of today's tiers", () => {
    const leases = new AdmissionLeases({ maxKeys: 10 });
    leases.note('brand:a', 0);
    expect(leases.want('brand:a', SCALED, 1, 0)).toBe(0);
    // Plus to Enterprise (60 to 240 a minute): exact at both ends, never a lease
    for (const limit of [60, 120, ENTERPRISE]) {
      for (let i = 0; i < 50; i++) leases.note(`brand:${limit}`, i);
      expect(leases.want(`brand:${limit}`, limit, 1, 50)).toBe(0);
    }
    // 600 a minute is 10 a span: the smallest budget that leases
    for (let i = 0; i < 50; i++) leases.note('brand:600', i);
    expect(leases.want('brand:600', 600, 1, 50)).toBe(9);
    expect(leases.want('brand:600', 599, 1, 50)).toBe(0);
  });

  it("sizes a lease by the budget's requests here in a span, within the budget's rate and the cap", () => {
    const leases = new AdmissionLeases({ maxKeys: 10 });
    for (let i = 0; i < 5; i++) leases.note('brand:a', i);
    expect(leases.want('brand:a', SCALED, 1, 5)).toBe(4);
    // 720 a minute is 12 a second, less the request's own
    for (let i = 0; i < 50; i++) leases.note('brand:e', i);
    expect(leases.want('brand:e', 720, 1, 50)).toBe(11);
    for (let i = 0; i < 500; i++) leases.note('brand:b', i);
    expect(leases.want('brand:b', SCALED, 1, 500)).toBe(31);
    // only a request's one unit leases (MCP batches charge more)
    expect(leases.want('brand:b', SCALED, 3, 500)).toBe(0);
  });

  it('hands out exactly the units granted, and none once the span has passed', () => {
    const leases = new AdmissionLeases({ maxKeys: 10 });
    expect(leases.granted('brand:a', lease(3), 100, 105)).toBeUndefined();
    expect(leases.take('brand:a', SCALED, 110)).toMatchObject({ remaining: 1_002 });
    expect(leases.take('brand:a', SCALED, 120)).toMatchObject({ remaining: 1_001 });
    expect(leases.take('brand:a', SCALED, 130)).toMatchObject({ remaining: 1_000 });
    expect(leases.take('brand:a', SCALED, 140)).toBeUndefined();

    leases.granted('brand:b', lease(3), 100, 105);
    // the span is counted from when the call was sent, not from its answer
    expect(leases.take('brand:b', SCALED, 100 + LEASE_SPAN_MS - 1)).toBeDefined();
    expect(leases.take('brand:b', SCALED, 100 + LEASE_SPAN_MS)).toBeUndefined();
    // and a budget whose limit changed (a tier change) does not use the old lease
    leases.granted('brand:c', lease(3), 100, 105);
    expect(leases.take('brand:c', ENTERPRISE, 110)).toBeUndefined();
  });

  it('keeps a live lease when a call is made anyway, and gives back what an ended one left', () => {
    const leases = new AdmissionLeases({ maxKeys: 10 });
    for (let i = 0; i < 20; i++) leases.note('brand:a', i);
    leases.granted('brand:a', lease(5, SCALED, 'g:1'), 100, 105);
    leases.take('brand:a', SCALED, 110);
    // a request that calls Redis to read a key along asks for no lease while this one lives
    expect(leases.want('brand:a', SCALED, 1, 120)).toBe(0);
    expect(leases.granted('brand:a', lease(0), 120, 125)).toBeUndefined();
    expect(leases.take('brand:a', SCALED, 130)).toBeDefined();
    // a new lease after the span: the old one's 3 untaken units go back
    expect(leases.granted('brand:a', lease(4, SCALED, 'g:2'), 1_200, 1_205)).toEqual({
      member: 'g:1',
      used: 2,
      units: 5,
    });
    expect(leases.end('brand:a')).toEqual({ member: 'g:2', used: 0, units: 4 });
    expect(leases.end('brand:a')).toBeUndefined();
  });
});

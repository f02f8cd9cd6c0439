import fc from 'fast-check';
import { AppError, parseOrThrow } from '../errors';
import { canonicalHash, canonicalJson } from './canonical';
import { PLAN_LIMITS, PLATFORMS, PlanInputSchema, toPlanInputBody, type PlanInput } from './input';

const VALID = {
  request_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  title: 'Summer launch',
  goal: 'Awareness among students',
  campaign_type: 'ugc',
  planned_for: '2026-12-01',
  review_on: '2026-11-20',
  planning_budget: '25000.50',
};

/** The AppError a refused input throws; fails the test if it parses or throws anything else. */
function refusal(input: unknown): AppError {
  try {
    parseOrThrow(PlanInputSchema, input);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`);
}

const fieldsOf = (err: AppError): string[] =>
  (err.details ?? []).map((d: { field: string }) => d.field);

describe('PlanInputSchema', () => {
  it('accepts the required fields and normalises them', () => {
    expect(parseOrThrow(PlanInputSchema, VALID)).toEqual({
      ...VALID,
      planning_budget: undefined,
      planning_budget_amount: 2_500_050,
    } as unknown as PlanInput);
    expect(parseOrThrow(PlanInputSchema, VALID)).not.toHaveProperty('planning_budget');
  });

  // The outside probe (2026-11-30): a lone surrogate was refused as "control characters".
  it('names what it refuses in text: a control character, or half of a surrogate pair', () => {
    const control = refusal({ ...VALID, title: 'a\u0007b' });
    expect(control.details).toEqual([
      expect.objectContaining({
        field: 'title',
        message: expect.stringMatching(/control character/) as unknown,
      }),
    ]);
    const lone = refusal({ ...VALID, title: 'a\ud800b' });
    expect(lone.details).toEqual([
      expect.objectContaining({
        field: 'title',
        message: expect.stringMatching(
          /half of a character \(an unpaired UTF-16 surrogate/,
        ) as unknown,
      }),
    ]);
  });

  it('accepts every optional field and drops null or blank ones', () => {
    const full = parseOrThrow(PlanInputSchema, {
      ...VALID,
      summary: 'A summary',
      brief: 'Line one\nLine two\twith a tab',
      requirements: ['Show the logo', 'Tag the brand'],
      platforms: ['tiktok', 'instagram'],
      notes: 'Private: margin is thin',
    });
    expect(full.requirements).toEqual(['Show the logo', 'Tag the brand']);
    expect(full.notes).toBe('Private: margin is thin');
    const sparse = parseOrThrow(PlanInputSchema, {
      ...VALID,
      summary: '  ',
      brief: null,
      requirements: [],
      platforms: null,
      notes: '',
    });
    expect(Object.keys(sparse).sort()).toEqual(
      Object.keys(parseOrThrow(PlanInputSchema, VALID)).sort(),
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a request_id that is not a UUID', { request_id: 'abc' }, 'request_id'],
    ['a missing title', { title: undefined }, 'title'],
    ['a blank goal', { goal: '   ' }, 'goal'],
    ['an oversized title', { title: 'x'.repeat(PLAN_LIMITS.title + 1) }, 'title'],
    ['an unknown campaign_type', { campaign_type: 'tv' }, 'campaign_type'],
    ['2026-02-30', { planned_for: '2026-02-30' }, 'planned_for'],
    ['a date in another format', { review_on: '20/11/2026' }, 'review_on'],
    ['a date with a time', { planned_for: '2026-12-01T00:00:00Z' }, 'planned_for'],
    ['a review after the planned date', { review_on: '2026-12-02' }, 'review_on'],
    ['a negative budget', { planning_budget: -1 }, 'planning_budget'],
    ['a three-decimal budget', { planning_budget: '10.125' }, 'planning_budget'],
    ['a boolean budget', { planning_budget: true }, 'planning_budget'],
    ['a NUL in the goal', { goal: 'a\u0000b' }, 'goal'],
    ['a string for requirements', { requirements: 'one' }, 'requirements'],
    [
      'too many requirements',
      { requirements: Array.from({ length: 51 }, (_, i) => `r${i}`) },
      'requirements',
    ],
    ['an unknown platform', { platforms: ['myspace'] }, 'platforms.0'],
    ['a repeated platform', { platforms: ['x', 'x'] }, 'platforms'],
    ['oversized notes', { notes: 'n'.repeat(PLAN_LIMITS.notes + 1) }, 'notes'],
    ['an unknown field', { budget: 5 }, 'budget'],
  ])('refuses %s with validation_failed naming the field', (_name, change, field) => {
    const err = refusal({ ...VALID, ...change });
    expect(err.code).toBe('validation_failed');
    expect(fieldsOf(err)).toContain(field);
    expect(err.message).toContain(field);
  });

  it.each([null, 'text', 42, [], [VALID]])('refuses a body that is %p', (body) => {
    expect(refusal(body).code).toBe('validation_failed');
  });
});

describe('canonicalJson', () => {
  it('ignores field order, budget spelling, request_id case and blank optional fields', () => {
    const a = parseOrThrow(PlanInputSchema, { ...VALID, planning_budget: 25000.5 });
    const b = parseOrThrow(PlanInputSchema, {
      summary: '',
      planning_budget: '25000.50',
      review_on: VALID.review_on,
      planned_for: VALID.planned_for,
      campaign_type: VALID.campaign_type,
      goal: VALID.goal,
      title: ` ${VALID.title} `,
      request_id: VALID.request_id.toUpperCase(),
    });
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalHash(a)).toBe(canonicalHash(b));
  });

  it('differs when any value differs', () => {
    const a = parseOrThrow(PlanInputSchema, VALID);
    for (const change of [{ planning_budget: '25000.51' }, { notes: 'n' }, { title: 'Other' }]) {
      expect(canonicalJson(parseOrThrow(PlanInputSchema, { ...VALID, ...change }))).not.toBe(
        canonicalJson(a),
      );
    }
  });
});

// ---- property tests ----

const safeText = (max: number) =>
  fc
    .string({ minLength: 1, maxLength: Math.min(max, 60), unit: 'grapheme' })
    .filter((s) => s.trim().length > 0 && s.trim() === s);
const isoDate = fc
  .date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2100-12-31T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 10));
const centavos = fc.integer({ min: 1, max: 10_000_000_000 });

const validInput = fc
  .record(
    {
      request_id: fc.uuid({ version: 4 }),
      title: safeText(PLAN_LIMITS.title),
      goal: safeText(PLAN_LIMITS.goal),
      campaign_type: fc.constantFrom('blitz', 'ugc', 'package', 'affiliate'),
      dates: fc.tuple(isoDate, isoDate),
      planning_budget: fc.oneof(
        centavos.map((c) => (c / 100).toFixed(2)),
        centavos.map((c) => Number((c / 100).toFixed(2))),
      ),
      summary: safeText(PLAN_LIMITS.summary),
      brief: safeText(PLAN_LIMITS.brief),
      requirements: fc.uniqueArray(safeText(PLAN_LIMITS.requirement), { maxLength: 5 }),
      platforms: fc.uniqueArray(fc.constantFrom(...PLATFORMS), { maxLength: 4 }),
      notes: safeText(PLAN_LIMITS.notes),
    },
    { requiredKeys: ['request_id', 'title', 'goal', 'campaign_type', 'dates', 'planning_budget'] },
  )
  .map(({ dates, ...rest }) => {
    const [a, b] = [...dates].sort();
    return { ...rest, review_on: a!, planned_for: b! };
  });

describe('PlanInputSchema properties', () => {
  it('accepts random valid inputs, and their wire form parses to the same value', () => {
    fc.assert(
      fc.property(validInput, (input) => {
        const parsed = parseOrThrow(PlanInputSchema, input);
        const again = parseOrThrow(
          PlanInputSchema,
          JSON.parse(JSON.stringify(toPlanInputBody(parsed))),
        );
        expect(again).toEqual(parsed);
        expect(canonicalJson(again)).toBe(canonicalJson(parsed));
      }),
      { numRuns: 300 },
    );
  });

  const invalidChange = fc.oneof(
    fc.record({
      title: fc.oneof(
        fc.integer(),
        fc.boolean(),
        fc.constant(''),
        fc
          .string({ minLength: PLAN_LIMITS.title + 1, maxLength: PLAN_LIMITS.title + 40 })
          .filter((s) => s.trim().length > PLAN_LIMITS.title),
      ),
    }),
    fc.record({
      campaign_type: fc
        .string()
        .filter((s) => !['blitz', 'ugc', 'package', 'affiliate'].includes(s)),
    }),
    fc.record({
      planned_for: fc.oneof(
        fc
          .tuple(
            fc.integer({ min: 2000, max: 2100 }),
            fc.integer({ min: 1, max: 12 }),
            fc.integer({ min: 32, max: 99 }),
          )
          .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${d}`),
        fc.constantFrom(
          '2026-02-30',
          '2026-02-29',
          '2026-04-31',
          '2026-13-01',
          '2026-00-10',
          '26-01-01',
          '',
        ),
        fc.integer(),
      ),
    }),
    fc.record({
      planning_budget: fc.oneof(
        fc.integer({ max: 0 }),
        fc.double({ max: 0, noNaN: true }),
        fc
          .integer({ min: 1, max: 10 ** 9 })
          .map((n) => `${Math.floor(n / 1000)}.${String(n % 1000).padStart(3, '0')}`),
        fc.constantFrom(Number.NaN, '1e5', 'abc', null, {}, [], '-1.00'),
      ),
    }),
    fc.record({ request_id: fc.oneof(fc.string({ maxLength: 40 }), fc.integer()) }),
    fc.record({ notes: fc.oneof(fc.integer(), fc.constant('n'.repeat(PLAN_LIMITS.notes + 1))) }),
    fc.record({
      requirements: fc.oneof(fc.string({ minLength: 1 }), fc.array(fc.integer(), { minLength: 1 })),
    }),
    fc.record({
      platforms: fc.array(
        fc.string({ minLength: 1 }).filter((s) => !(PLATFORMS as readonly string[]).includes(s)),
        { minLength: 1 },
      ),
    }),
  );

  it('refuses random invalid inputs with validation_failed and nothing else', () => {
    fc.assert(
      fc.property(validInput, invalidChange, (input, change) => {
        const err = refusal({ ...input, ...change });
        expect(err.code).toBe('validation_failed');
        expect(fieldsOf(err).length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws anything but validation_failed for arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          parseOrThrow(PlanInputSchema, value);
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).code).toBe('validation_failed');
        }
      }),
      { numRuns: 300 },
    );
  });
});

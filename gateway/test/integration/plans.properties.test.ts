import fc from 'fast-check';
import { PLATFORMS } from '@brand/shared/plans';
import { startStack, type Stack } from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';
import type { ErrorBody } from '../support/mcpHttp';
import { makePlanBrand, postPlan, type PlanOut } from '../support/plans';

// Plan input, property-tested against the running system: random valid inputs are accepted and
// round-trip (the result carries exactly what was sent, normalised); random invalid inputs get 400
// validation_failed, never a 5xx. Each run uses a fresh brand per batch, so the brand rate limit
// (240 a minute for Enterprise) is never what answers.

let stack: Stack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ plans: true, plansEnv: { PENDING_PLAN_LIMIT: '1000' } });
  api = new ApiClient(stack.gateway.url);
});
afterAll(() => stack?.close());

const text = (max: number) =>
  fc
    .string({ minLength: 1, maxLength: max, unit: 'grapheme' })
    // eslint-disable-next-line no-control-regex -- control characters are what is excluded
    .filter((s) => s.trim() === s && s.length > 0 && !/[\u0000-\u001f\u007f]/.test(s));
const day = fc
  .date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2100-12-31T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 10));
const centavos = fc.integer({ min: 1, max: 10_000_000_000 });

const validBody = fc
  .record({
    request_id: fc.uuid({ version: 4 }),
    title: text(200),
    goal: text(300),
    campaign_type: fc.constantFrom('blitz', 'ugc', 'package', 'affiliate'),
    days: fc.tuple(day, day),
    amount: centavos,
    asNumber: fc.boolean(),
    summary: fc.option(text(100), { nil: undefined }),
    requirements: fc.option(fc.uniqueArray(text(40), { minLength: 1, maxLength: 4 }), {
      nil: undefined,
    }),
    platforms: fc.option(
      fc.uniqueArray(fc.constantFrom(...PLATFORMS), { minLength: 1, maxLength: 3 }),
      { nil: undefined },
    ),
  })
  .map(({ days, amount, asNumber, ...rest }) => {
    const [review_on, planned_for] = [...days].sort() as [string, string];
    const decimal = (amount / 100).toFixed(2);
    return {
      ...rest,
      review_on,
      planned_for,
      planning_budget: asNumber ? Number(decimal) : decimal,
      expectedBudget: decimal,
    };
  });

const invalidChange = fc.oneof(
  fc.record({
    planned_for: fc.constantFrom(
      '2026-02-30',
      '2026-02-29',
      '2026-13-01',
      '26-1-1',
      '2026/01/01',
      '',
    ),
  }),
  fc.record({ review_on: fc.oneof(fc.integer(), fc.constant(null), fc.constant('2026-04-31')) }),
  fc.record({
    planning_budget: fc.oneof(
      fc.integer({ min: -1_000_000, max: 0 }),
      fc
        .integer({ min: 1, max: 1_000_000 })
        .map((n) => `${n}.${String(n % 1000).padStart(3, '0')}`),
      fc.constantFrom('1e5', '-1', 'NaN', '', ' 5', '1,000', true, null, [], {}),
    ),
  }),
  fc.record({
    campaign_type: fc.string().filter((s) => !['blitz', 'ugc', 'package', 'affiliate'].includes(s)),
  }),
  fc.record({
    title: fc.oneof(
      fc.constant(''),
      fc.constant('x'.repeat(201)),
      fc.integer(),
      fc.constant('a\u0000b'),
    ),
  }),
  fc.record({ request_id: fc.oneof(fc.string({ maxLength: 30 }), fc.integer()) }),
  fc.record({ platforms: fc.constantFrom(['myspace'], 'tiktok', [1], ['x', 'x']) }),
  fc.record({ notes: fc.oneof(fc.integer(), fc.constant('n'.repeat(5001))) }),
);

/** Runs `n` property cases, each batch of 100 under a fresh brand (its own rate budget). */
async function withBrands(n: number, run: (key: string) => Promise<void>): Promise<void> {
  for (let done = 0; done < n; done += 100) {
    const { prepareKey } = await makePlanBrand(stack);
    await run(prepareKey);
  }
}

describe('property: the running system and random inputs', () => {
  it('accepts random valid inputs, and the result round-trips them', async () => {
    await withBrands(100, async (key) => {
      await fc.assert(
        fc.asyncProperty(validBody, async ({ expectedBudget, ...body }) => {
          const res: ApiResponse<PlanOut> = await postPlan(api, key, body);
          expect(res.status).toBe(201);
          expect(res.body).toMatchObject({
            request_id: body.request_id,
            title: body.title,
            goal: body.goal,
            campaign_type: body.campaign_type,
            planned_for: body.planned_for,
            review_on: body.review_on,
            planning_budget: expectedBudget,
            summary: body.summary ?? null,
            requirements: body.requirements ?? [],
            platforms: body.platforms ?? [],
          });
        }),
        { numRuns: 90 },
      );
    });
  });

  it('refuses random invalid inputs with 400 validation_failed, never a 5xx', async () => {
    await withBrands(100, async (key) => {
      await fc.assert(
        fc.asyncProperty(
          validBody,
          invalidChange,
          async ({ expectedBudget: _b, ...body }, change) => {
            const res = await postPlan<ErrorBody>(api, key, { ...body, ...change });
            expect(res.status).toBe(400);
            expect(res.body.error.code).toBe('validation_failed');
            expect(res.body.error.details?.length).toBeGreaterThan(0);
          },
        ),
        { numRuns: 90 },
      );
    });
  });
});

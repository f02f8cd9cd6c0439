import fc from 'fast-check';
import { CAMPAIGN_TYPES } from '../enums';
import { AppError, parseOrThrow } from '../errors';
import { formatCentavos, MAX_PLANNING_BUDGET_CENTAVOS } from './budget';
import { PLATFORMS, PlanInputMessageSchema, PlanInputSchema } from './input';

/** A PlanInput message as the plans service decodes it (ts-proto, useOptionals=none). */
interface Message {
  request_id: string;
  title: string;
  goal: string;
  campaign_type: number;
  planned_for: string;
  review_on: string;
  planning_budget_amount: number;
  summary: string | undefined;
  brief: string | undefined;
  requirements: string[];
  platforms: string[];
  notes: string | undefined;
}

/**
 * What the plans service did before issue 17: the message turned back into the client's
 * form (centavos formatted as a decimal string) and parsed by the client's schema. The
 * message schema must give the same answer without that round trip.
 */
function viaClientForm(m: Message): Record<string, unknown> {
  const { planning_budget_amount: amount, ...rest } = m;
  return {
    ...rest,
    campaign_type: CAMPAIGN_TYPES.fromProto(m.campaign_type) ?? `unknown (${m.campaign_type})`,
    planning_budget: Number.isSafeInteger(amount) && amount > 0 ? formatCentavos(amount) : amount,
  };
}

/** The parsed value, or the refusal's message and fields. */
function answer(parse: () => unknown): unknown {
  try {
    return { ok: parse() };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, message: err.message, details: err.details };
  }
}

/** A client-form refusal with the budget named as the message names it. */
function renamed(a: unknown): unknown {
  const refusal = a as { message?: string; details?: Array<{ field: string }> };
  if (refusal.message === undefined) return a;
  return {
    ...refusal,
    message: refusal.message.replace(/(^|; )planning_budget:/, '$1planning_budget_amount:'),
    details: refusal.details?.map((d) =>
      d.field === 'planning_budget' ? { ...d, field: 'planning_budget_amount' } : d,
    ),
  };
}

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('', '  ', 'Summer launch', 'x'.repeat(2001), 'nul\u0000byte', ' padded '),
);
const maybeText = fc.option(text, { nil: undefined });
const date = fc.oneof(
  fc.constantFrom('2026-12-01', '2026-11-20', '2026-02-30', '2101-01-01', '1999-12-31', ''),
  fc
    .date({ min: new Date('1990-01-01'), max: new Date('2110-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
);
const message: fc.Arbitrary<Message> = fc.record({
  request_id: fc.oneof(
    fc.uuid(),
    fc.constantFrom('', 'retry-1', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'),
  ),
  title: text,
  goal: text,
  campaign_type: fc.integer({ min: -1, max: 6 }),
  planned_for: date,
  review_on: date,
  planning_budget_amount: fc.oneof(
    fc.integer({ min: 1, max: MAX_PLANNING_BUDGET_CENTAVOS }),
    fc.integer({ min: -(2 ** 40), max: 0 }),
    fc.integer({ min: MAX_PLANNING_BUDGET_CENTAVOS + 1, max: Number.MAX_SAFE_INTEGER }),
  ),
  summary: maybeText,
  brief: maybeText,
  requirements: fc.array(text, { maxLength: 3 }),
  platforms: fc.array(fc.oneof(fc.constantFrom(...PLATFORMS), fc.string()), { maxLength: 3 }),
  notes: maybeText,
});

describe('PlanInputMessageSchema', () => {
  it('gives the answer the client-form round trip gave, for valid and invalid messages', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(answer(() => parseOrThrow(PlanInputMessageSchema, m))).toEqual(
          renamed(answer(() => parseOrThrow(PlanInputSchema, viaClientForm(m)))),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it.each<[string, Partial<Message>, string]>([
    [
      'UNSPECIFIED',
      { campaign_type: 0 },
      'campaign_type: must be one of blitz, ugc, package, affiliate.',
    ],
    ['an unknown campaign type', { campaign_type: 99 }, 'campaign_type: must be one of'],
    [
      'a zero budget',
      { planning_budget_amount: 0 },
      'planning_budget_amount: must be a positive amount.',
    ],
    ['a negative budget', { planning_budget_amount: -100 }, 'must be a positive amount.'],
    [
      'a budget over the maximum',
      { planning_budget_amount: MAX_PLANNING_BUDGET_CENTAVOS + 1 },
      'must be at most 100000000.00 PHP.',
    ],
    [
      'a fraction of a centavo',
      { planning_budget_amount: 1.5 },
      'must be a whole number of centavos.',
    ],
  ])('refuses %s by field', (_name, change, expected) => {
    const valid: Message = {
      request_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      title: 'Summer launch',
      goal: 'Awareness',
      campaign_type: CAMPAIGN_TYPES.toProto('ugc'),
      planned_for: '2026-12-01',
      review_on: '2026-11-20',
      planning_budget_amount: 2_500_050,
      summary: undefined,
      brief: undefined,
      requirements: [],
      platforms: [],
      notes: undefined,
    };
    expect(parseOrThrow(PlanInputMessageSchema, valid).planning_budget_amount).toBe(2_500_050);
    expect(() => parseOrThrow(PlanInputMessageSchema, { ...valid, ...change })).toThrow(expected);
  });
});

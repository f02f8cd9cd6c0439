import { z } from 'zod';
import { isStorableText, storableTextRefusal } from '../text';
import { CAMPAIGN_TYPES, type CampaignTypeName } from '../enums';
import {
  centavosProblem,
  formatCentavos,
  MAX_PLANNING_BUDGET_CENTAVOS,
  parseBudget,
} from './budget';
import { dateProblem, MAX_PLAN_DATE, MIN_PLAN_DATE } from './dates';

/** Length and count bounds of the input fields (characters, items). */
export const PLAN_LIMITS = {
  title: 200,
  goal: 2000,
  summary: 2000,
  brief: 10_000,
  requirement: 500,
  requirements: 50,
  notes: 5000,
} as const;

/** Platforms a plan may target: the networks the campaign wizard can prefill. */
export const PLATFORMS = [
  'tiktok',
  'instagram',
  'youtube',
  'facebook',
  'x',
  'threads',
  'twitch',
  'kumu',
  'shopee',
  'lazada',
] as const;
export type PlatformName = (typeof PLATFORMS)[number];

/** A trimmed, bounded, non-blank string. */
function text(max: number, description: string) {
  return z
    .string({ error: 'must be a string.' })
    .trim()
    .min(1, 'must not be blank.')
    .max(max, `must be at most ${max} characters.`)
    .refine(isStorableText, { error: (issue) => storableTextRefusal(String(issue.input)) })
    .describe(description);
}

/** An optional creative field: null, a blank string and absence all mean "not given". */
function optionalText(max: number, description: string) {
  return z.preprocess(
    (v) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v),
    text(max, description).optional(),
  );
}

const date = (description: string) =>
  z
    .string({ error: 'must be a date written YYYY-MM-DD.' })
    .superRefine((s, ctx) => {
      const problem = dateProblem(s);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ description, format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

const budget = z
  .union([z.number(), z.string()], {
    error: 'must be a PHP amount: a number or a decimal string such as "25000.50".',
  })
  .transform((value, ctx) => {
    const parsed = parseBudget(value);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    }
    return parsed.centavos;
  })
  .describe(
    `Budget in PHP: a positive amount with at most two decimals, as a number (25000.5) or a ` +
      `decimal string ("25000.50"); at most ${formatCentavos(MAX_PLANNING_BUDGET_CENTAVOS)}.`,
  );

const list = <T extends z.ZodType<string>>(item: T, max: number, description: string) =>
  z
    .array(item, { error: 'must be a list of strings.' })
    .max(max, `must have at most ${max} items.`)
    .refine((items) => new Set(items).size === items.length, 'must not repeat an item.')
    .nullish()
    .transform((items) =>
      items === null || items === undefined || items.length === 0 ? undefined : items,
    )
    .describe(description);

const requestId = z
  .uuid({ error: 'must be a UUID.' })
  .transform((s) => s.toLowerCase())
  .describe('A new UUID per plan; reuse it, with identical input, when retrying.');
const title = text(PLAN_LIMITS.title, 'Short name of the campaign.');
const goal = text(PLAN_LIMITS.goal, 'What the campaign should achieve.');
const CAMPAIGN_TYPE_ERROR = `must be one of ${CAMPAIGN_TYPES.names.join(', ')}.`;
const plannedFor = date(
  `Planned date of the campaign, YYYY-MM-DD (${MIN_PLAN_DATE}..${MAX_PLAN_DATE}).`,
);
const reviewOn = date('Date the brand reviews the plan, YYYY-MM-DD, on or before planned_for.');
const summary = optionalText(PLAN_LIMITS.summary, 'Creative field: a one-paragraph summary.');
const brief = optionalText(PLAN_LIMITS.brief, 'Creative field: the brief for creators.');
const requirements = list(
  text(PLAN_LIMITS.requirement, 'One requirement.'),
  PLAN_LIMITS.requirements,
  `Creative field: requirements for creators, one per item (at most ${PLAN_LIMITS.requirements}).`,
);
const platforms = list(
  z.enum(PLATFORMS, { error: `must be one of ${PLATFORMS.join(', ')}.` }),
  PLATFORMS.length,
  `Creative field: target platforms, each one of ${PLATFORMS.join(', ')}.`,
);
const notes = optionalText(
  PLAN_LIMITS.notes,
  'Private notes for the brand: stored, never returned by the API or the assistant tool.',
);

/** The rule across fields, the same in both forms: the review comes on or before the date. */
function reviewBeforePlanned(
  input: { review_on: string; planned_for: string },
  ctx: z.RefinementCtx,
): void {
  if (input.review_on > input.planned_for) {
    ctx.addIssue({
      code: 'custom',
      path: ['review_on'],
      message: 'must be on or before planned_for.',
    });
  }
}

const OPTIONAL_KEYS = ['summary', 'brief', 'requirements', 'platforms', 'notes'] as const;

/** The parsed input without the optional keys that were not given, so equal inputs are equal. */
function withoutAbsentOptionals(input: PlanInput): PlanInput {
  const out: PlanInput = { ...input };
  for (const key of OPTIONAL_KEYS) if (out[key] === undefined) delete out[key];
  return out;
}

/**
 * The campaign-plan input of docs/contract.md#plan-input as a client sends it: the one schema for the REST
 * body, the MCP tool's inputSchema, the OpenAPI document and the testkit's fixtures.
 * Unknown fields are refused. Parsing normalises (trimmed strings, lower-case request_id,
 * centavos, empty optional fields dropped), so two spellings of one input parse to equal
 * values. The plans service checks the same rules on its gRPC form (PlanInputMessageSchema).
 */
export const PlanInputSchema = z
  .strictObject(
    {
      request_id: requestId,
      title,
      goal,
      campaign_type: z
        .enum(CAMPAIGN_TYPES.names, { error: CAMPAIGN_TYPE_ERROR })
        .describe(
          'blitz (clipping), ugc (original content), package (influencers), affiliate (tracked promotion).',
        ),
      planned_for: plannedFor,
      review_on: reviewOn,
      planning_budget: budget,
      summary,
      brief,
      requirements,
      platforms,
      notes,
    },
    { error: 'must be an object with the campaign-plan fields.' },
  )
  .superRefine(reviewBeforePlanned)
  .transform(({ planning_budget, ...rest }): PlanInput =>
    withoutAbsentOptionals({ ...rest, planning_budget_amount: planning_budget }),
  );

/**
 * The same input in the form the plans service receives it (the PlanInput message): the
 * campaign type as its enum number, the budget as integer centavos, an absent string as
 * absent and an empty list as not given. Checked once, as it arrives, by the same field
 * rules as PlanInputSchema, to the same PlanInput: this API is a contract of its own and
 * trusts no caller's checks. UNSPECIFIED and unknown campaign types are refused by field.
 */
export const PlanInputMessageSchema = z
  .object({
    request_id: requestId,
    title,
    goal,
    campaign_type: z.number({ error: CAMPAIGN_TYPE_ERROR }).transform((value, ctx) => {
      const name = CAMPAIGN_TYPES.fromProto(value);
      if (name) return name;
      ctx.addIssue({ code: 'custom', message: CAMPAIGN_TYPE_ERROR });
      return z.NEVER;
    }),
    planned_for: plannedFor,
    review_on: reviewOn,
    planning_budget_amount: z
      .number({ error: 'must be a whole number of centavos.' })
      // A transform, like the client form's budget: its refusal also skips the cross-field rule.
      .transform((centavos, ctx) => {
        const problem = centavosProblem(centavos);
        if (!problem) return centavos;
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }),
    summary,
    brief,
    requirements,
    platforms,
    notes,
  })
  .superRefine(reviewBeforePlanned)
  .transform(withoutAbsentOptionals);

/** A validated, normalised plan input; planning_budget_amount is integer centavos. */
export interface PlanInput {
  request_id: string;
  title: string;
  goal: string;
  campaign_type: CampaignTypeName;
  planned_for: string;
  review_on: string;
  planning_budget_amount: number;
  summary?: string;
  brief?: string;
  requirements?: string[];
  platforms?: PlatformName[];
  notes?: string;
}

/** The body a client sends: what PlanInputSchema accepts. */
export type PlanInputBody = z.input<typeof PlanInputSchema>;

/**
 * A parsed input back in the client's form (budget as a two-decimal string): parsing it
 * again gives the same PlanInput. The canonical JSON (idempotency hash) is built on it.
 */
export function toPlanInputBody(input: PlanInput): Record<string, unknown> {
  const { planning_budget_amount, ...rest } = input;
  return { ...rest, planning_budget: formatCentavos(planning_budget_amount) };
}

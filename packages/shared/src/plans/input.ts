import { z } from 'zod';
import { CAMPAIGN_TYPES, type CampaignTypeName } from '../enums';
import { formatCentavos, MAX_PLANNING_BUDGET_CENTAVOS, parseBudget } from './budget';
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

/**
 * Text PostgreSQL and every client can hold: no NUL or other control characters (tab and
 * line breaks are fine) and no lone UTF-16 surrogates. A NUL would otherwise reach the
 * database as an error, i.e. a 5xx for bad input.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|\p{Cs}/u;

/** A trimmed, bounded, non-blank string. */
function text(max: number, description: string) {
  return z
    .string({ error: 'must be a string.' })
    .trim()
    .min(1, 'must not be blank.')
    .max(max, `must be at most ${max} characters.`)
    .refine((s) => !UNSAFE_TEXT.test(s), 'must not contain control characters.')
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

/**
 * The campaign-plan input of SPEC 2.3: the one schema for the REST body, the MCP tool's
 * inputSchema, the OpenAPI document and the plans service's own check. Unknown fields are
 * refused. Parsing normalises (trimmed strings, lower-case request_id, centavos, empty
 * optional fields dropped), so two spellings of one input parse to equal values.
 */
export const PlanInputSchema = z
  .strictObject(
    {
      request_id: z
        .uuid({ error: 'must be a UUID.' })
        .transform((s) => s.toLowerCase())
        .describe('A new UUID per plan; reuse it, with identical input, when retrying.'),
      title: text(PLAN_LIMITS.title, 'Short name of the campaign.'),
      goal: text(PLAN_LIMITS.goal, 'What the campaign should achieve.'),
      campaign_type: z
        .enum(CAMPAIGN_TYPES.names, {
          error: `must be one of ${CAMPAIGN_TYPES.names.join(', ')}.`,
        })
        .describe(
          'blitz (clipping), ugc (original content), package (influencers), affiliate (tracked promotion).',
        ),
      planned_for: date(
        `Planned date of the campaign, YYYY-MM-DD (${MIN_PLAN_DATE}..${MAX_PLAN_DATE}).`,
      ),
      review_on: date('Date the brand reviews the plan, YYYY-MM-DD, on or before planned_for.'),
      planning_budget: budget,
      summary: optionalText(PLAN_LIMITS.summary, 'Creative field: a one-paragraph summary.'),
      brief: optionalText(PLAN_LIMITS.brief, 'Creative field: the brief for creators.'),
      requirements: list(
        text(PLAN_LIMITS.requirement, 'One requirement.'),
        PLAN_LIMITS.requirements,
        `Creative field: requirements for creators, one per item (at most ${PLAN_LIMITS.requirements}).`,
      ),
      platforms: list(
        z.enum(PLATFORMS, { error: `must be one of ${PLATFORMS.join(', ')}.` }),
        PLATFORMS.length,
        `Creative field: target platforms, each one of ${PLATFORMS.join(', ')}.`,
      ),
      notes: optionalText(
        PLAN_LIMITS.notes,
        'Private notes for the brand: stored, never returned by the API or the assistant tool.',
      ),
    },
    { error: 'must be an object with the campaign-plan fields.' },
  )
  .superRefine((input, ctx) => {
    if (input.review_on > input.planned_for) {
      ctx.addIssue({
        code: 'custom',
        path: ['review_on'],
        message: 'must be on or before planned_for.',
      });
    }
  })
  .transform((input): PlanInput => {
    const { planning_budget, ...rest } = input;
    const out: PlanInput = { ...rest, planning_budget_amount: planning_budget };
    for (const key of OPTIONAL_KEYS) if (out[key] === undefined) delete out[key];
    return out;
  });

const OPTIONAL_KEYS = ['summary', 'brief', 'requirements', 'platforms', 'notes'] as const;

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
 * A parsed input back in the wire form (budget as a two-decimal string): parsing it again
 * gives the same PlanInput. The plans service re-validates through this.
 */
export function toPlanInputBody(input: PlanInput): Record<string, unknown> {
  const { planning_budget_amount, ...rest } = input;
  return { ...rest, planning_budget: formatCentavos(planning_budget_amount) };
}

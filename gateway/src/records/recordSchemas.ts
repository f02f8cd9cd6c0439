import { z } from 'zod';
import type { ResourceName } from '@brand/shared/resources';

/**
 * The public shape of each resource's records: the one source for the OpenAPI document and
 * the MCP tools' outputSchema (the records service renders pages in this shape: every field
 * of the proto message, in its order). A unit test checks them against the proto messages.
 * Every field is always present; absent values are null.
 */
const timestamp = (description: string) =>
  z.string().meta({
    format: 'date-time',
    description: `${description} RFC 3339, UTC, microseconds.`,
    examples: ['2026-11-02T08:15:42.123456Z'],
  });
const nullableTimestamp = (description: string) => timestamp(description).nullable();
const money = (description: string) =>
  z
    .number()
    .int()
    .min(0)
    .meta({ description: `${description} Integer centavos (1/100 PHP).`, examples: [2500000] });
const currency = z.literal('PHP').meta({ description: 'ISO 4217 currency; always PHP.' });
const id = (prefix: string, description: string) =>
  z.string().meta({
    description: `${description} (\`${prefix}_...\`).`,
    examples: [`${prefix}_3kTMd9Q0bXh7RzL2aP1c`],
  });
const day = (description: string) =>
  z.string().meta({ format: 'date', description, examples: ['2026-11-15'] });

const Campaign = z
  .object({
    id: id('cmp', 'Campaign id'),
    title: z.string().meta({ examples: ['Summer Glow Serum Launch 2026'] }),
    type: z.enum(['blitz', 'ugc', 'package', 'affiliate']).meta({
      description:
        'blitz (clipping), ugc (original content), package (influencers), affiliate (tracked promotion).',
    }),
    status: z.enum(['draft', 'active', 'paused', 'completed', 'settled']),
    budget_amount: money('Total budget.'),
    spent_amount: money('Spent so far.'),
    currency,
    platforms: z.array(z.string()).meta({ examples: [['tiktok', 'instagram']] }),
    starts_on: day('First day of the campaign.'),
    ends_on: day('Last day of the campaign.'),
    created_at: timestamp('Creation time; the list order and the since filter use it.'),
    updated_at: timestamp('Last change.'),
    settled_at: nullableTimestamp('When the campaign was settled; null until then.'),
  })
  .meta({ id: 'Campaign' });

const Submission = z
  .object({
    id: id('sub', 'Submission id'),
    campaign_id: id('cmp', 'Campaign'),
    creator_handle: z.string().meta({
      description: "The creator's public handle; no other personal details are exposed.",
      examples: ['mika.creates'],
    }),
    platform: z.string().meta({ examples: ['tiktok'] }),
    content_url: z.string().meta({ format: 'uri' }),
    status: z.enum(['pending', 'approved', 'rejected']),
    rejection_reason: z.string().nullable(),
    views: z.number().int().min(0),
    created_at: timestamp('Submission time.'),
    updated_at: timestamp('Last change, e.g. a review.'),
    reviewed_at: nullableTimestamp('When it was approved or rejected; null while pending.'),
  })
  .meta({ id: 'Submission' });

const Payout = z
  .object({
    id: id('po', 'Payout id'),
    campaign_id: id('cmp', 'Campaign'),
    submission_id: id('sub', 'Submission paid for').nullable(),
    creator_handle: z.string(),
    amount: money('Amount paid to the creator.'),
    currency,
    method: z.enum(['gcash', 'maya', 'bank_transfer']),
    status: z.enum(['pending', 'processing', 'paid', 'failed']),
    failure_reason: z.string().nullable(),
    created_at: timestamp('Creation time.'),
    updated_at: timestamp('Last change.'),
    paid_at: nullableTimestamp('When it was paid; null until then.'),
  })
  .meta({ id: 'Payout' });

const Deposit = z
  .object({
    id: id('dep', 'Deposit id'),
    campaign_id: id('cmp', 'Campaign funded, if any').nullable(),
    amount: money('Amount deposited.'),
    currency,
    method: z.enum(['gcash', 'maya', 'bank_transfer', 'card']),
    status: z.enum(['pending', 'confirmed', 'failed']),
    reference: z.string().meta({ examples: ['DEP-48213377'] }),
    created_at: timestamp('Creation time.'),
    updated_at: timestamp('Last change.'),
    confirmed_at: nullableTimestamp('When the funds were confirmed; null until then.'),
  })
  .meta({ id: 'Deposit' });

const Conversion = z
  .object({
    id: id('cnv', 'Conversion id'),
    campaign_id: id('cmp', 'Campaign credited'),
    link_id: id('lnk', 'Tracked link, if any').nullable(),
    event: z.enum(['sale', 'signup', 'install', 'lead']),
    value_amount: money('Order value for sales; 0 otherwise.'),
    currency,
    order_reference: z.string().nullable(),
    occurred_at: timestamp('When the conversion happened.'),
    created_at: timestamp('When it was recorded.'),
  })
  .meta({ id: 'Conversion' });

const Link = z
  .object({
    id: id('lnk', 'Link id'),
    campaign_id: id('cmp', 'Campaign'),
    creator_handle: z.string(),
    destination_url: z.string().meta({ format: 'uri' }),
    short_url: z.string().meta({ format: 'uri' }),
    status: z.enum(['active', 'disabled']),
    clicks: z.number().int().min(0),
    conversions: z.number().int().min(0),
    created_at: timestamp('Creation time.'),
    updated_at: timestamp('Last change.'),
  })
  .meta({ id: 'Link' });

/** Each resource's record: the items of its page's `data`, and the answer of GET /api/v1/{resource}/{id}. */
export const RECORD_SCHEMAS = {
  campaigns: Campaign,
  submissions: Submission,
  payouts: Payout,
  deposits: Deposit,
  conversions: Conversion,
  links: Link,
} as const satisfies Record<ResourceName, z.ZodObject>;

/** The fields of each resource, in schema order. */
export const RECORD_FIELDS = Object.fromEntries(
  Object.entries(RECORD_SCHEMAS).map(([resource, schema]) => [resource, Object.keys(schema.shape)]),
) as Record<ResourceName, string[]>;

const pageIds: Record<ResourceName, string> = {
  campaigns: 'CampaignPage',
  submissions: 'SubmissionPage',
  payouts: 'PayoutPage',
  deposits: 'DepositPage',
  conversions: 'ConversionPage',
  links: 'LinkPage',
};

/** The list envelope of docs/contract.md#list-envelope for one resource. */
function pageSchema<R extends ResourceName>(resource: R) {
  return z
    .object({
      resource: z.literal(resource).meta({ description: 'The resource requested.' }),
      count: z
        .number()
        .int()
        .min(0)
        .meta({ description: 'Number of records in this page (the length of data).' }),
      data: z
        .array(RECORD_SCHEMAS[resource])
        .meta({ description: 'The records, newest first. May be empty.' }),
      next_cursor: z.string().optional().meta({
        description:
          'Present only when the page is full (count equals limit): pass it as cursor to get the next page. Absent on the last page.',
      }),
    })
    .meta({ id: pageIds[resource] });
}

export const PAGE_SCHEMAS = {
  campaigns: pageSchema('campaigns'),
  submissions: pageSchema('submissions'),
  payouts: pageSchema('payouts'),
  deposits: pageSchema('deposits'),
  conversions: pageSchema('conversions'),
  links: pageSchema('links'),
} as const;

export type Page = z.infer<(typeof PAGE_SCHEMAS)[ResourceName]>;

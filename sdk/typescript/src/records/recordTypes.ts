import type { components } from '../generated/openapi.js';

type Schemas = components['schemas'];

/** A campaign, as the API lists it (generated from the OpenAPI document). */
export type Campaign = Schemas['Campaign'];
/** A creator's submission (status `pending`, `approved` or `rejected`). */
export type Submission = Schemas['Submission'];
/** A payout to a creator (status `pending`, `processing`, `paid` or `failed`). */
export type Payout = Schemas['Payout'];
/** A deposit funding the brand's campaigns. */
export type Deposit = Schemas['Deposit'];
/** A tracked conversion (sale, signup, install, lead). */
export type Conversion = Schemas['Conversion'];
/** A creator's tracked link. */
export type Link = Schemas['Link'];

/** Each resource's record type, by the resource's name in the API's paths. */
export interface RecordsByResource {
  campaigns: Campaign;
  submissions: Submission;
  payouts: Payout;
  deposits: Deposit;
  conversions: Conversion;
  links: Link;
}

/** The six resource names (docs/contract.md#resources). */
export type ResourceName = keyof RecordsByResource;

export const RESOURCE_NAMES: readonly ResourceName[] = [
  'campaigns',
  'submissions',
  'payouts',
  'deposits',
  'conversions',
  'links',
];

/** Each resource's page envelope, as generated. */
interface PagesByResource {
  campaigns: Schemas['CampaignPage'];
  submissions: Schemas['SubmissionPage'];
  payouts: Schemas['PayoutPage'];
  deposits: Schemas['DepositPage'];
  conversions: Schemas['ConversionPage'];
  links: Schemas['LinkPage'];
}

/**
 * One page of a resource (docs/contract.md#list-envelope): `resource`, `count`, `data` (newest first) and
 * `next_cursor`, present only on a full page.
 */
export type Envelope<R extends ResourceName> = PagesByResource[R];

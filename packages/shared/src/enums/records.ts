import { Resource } from '@brand/proto/records/v1';
import type { ResourceName } from '../resources';
import { enumTable } from './enumTable';

/** The six readable resources (docs/contract.md#resources) and their wire values, in the contract's order. */
export const RESOURCE_ENUM = enumTable({
  campaigns: Resource.RESOURCE_CAMPAIGNS,
  submissions: Resource.RESOURCE_SUBMISSIONS,
  payouts: Resource.RESOURCE_PAYOUTS,
  deposits: Resource.RESOURCE_DEPOSITS,
  conversions: Resource.RESOURCE_CONVERSIONS,
  links: Resource.RESOURCE_LINKS,
} as const satisfies Record<ResourceName, Resource>);

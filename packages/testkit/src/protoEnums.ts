import type { BrandTier, Environment, Role } from '@brand/proto/access/v1';
import type { Resource } from '@brand/proto/records/v1';
import {
  ENVIRONMENTS,
  RESOURCE_ENUM,
  ROLES,
  TIERS,
  type EnumTable,
  type EnvironmentName,
  type RoleName,
  type TierName,
} from '@brand/shared/enums';
import type { ResourceName } from '@brand/shared/resources';

export type { EnvironmentName, RoleName, TierName };

/**
 * Name → wire value through the shared tables. A number passes through unchanged, so a
 * test can send UNSPECIFIED or an unknown value on purpose.
 */
const valueOf =
  <Name extends string, Value extends number>(table: EnumTable<Name, Value>) =>
  (v: Name | Value): Value =>
    typeof v === 'number' ? v : table.toProto(v);

export const tierValue = valueOf<TierName, BrandTier>(TIERS);
export const roleValue = valueOf<RoleName, Role>(ROLES);
export const environmentValue = valueOf<EnvironmentName, Environment>(ENVIRONMENTS);
export const resourceValue = valueOf<ResourceName, Resource>(RESOURCE_ENUM);

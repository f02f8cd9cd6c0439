import { Environment, Plan, Role } from '@brand/proto/access/v1';
import type { KeyEnvironment } from '@brand/shared/keys';

/** Plans from lowest to highest; keys need Plus or above. */
export const PLAN_NAMES = ['free', 'plus', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export const ROLE_NAMES = ['owner', 'admin', 'member'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

/**
 * Maps between the proto enums (PLAN_PLUS) and the names stored in the database and
 * typed by operators (plus). Unknown or UNSPECIFIED values map to undefined.
 */
function enumMapping<Name extends string, E extends number>(
  names: readonly Name[],
  prefix: string,
  enumObject: Record<string, string | number>,
): { toProto: (name: Name) => E; fromProto: (value: E) => Name | undefined } {
  const value = (name: Name): E => enumObject[`${prefix}_${name.toUpperCase()}`] as E;
  return {
    toProto: value,
    fromProto: (v) => names.find((name) => value(name) === v),
  };
}

export const plans = enumMapping<PlanName, Plan>(PLAN_NAMES, 'PLAN', Plan);
export const roles = enumMapping<RoleName, Role>(ROLE_NAMES, 'ROLE', Role);
export const environments = enumMapping<KeyEnvironment, Environment>(
  ['live', 'test'],
  'ENVIRONMENT',
  Environment,
);

export function planAtLeastPlus(plan: PlanName): boolean {
  return PLAN_NAMES.indexOf(plan) >= PLAN_NAMES.indexOf('plus');
}

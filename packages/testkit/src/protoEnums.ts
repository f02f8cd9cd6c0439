import { Environment, Plan, Role } from '@brand/proto/access/v1';
import { Resource, type ResourceRecord } from '@brand/proto/records/v1';
import type { ResourceName } from '@brand/shared/resources';

export type PlanName = 'free' | 'plus' | 'pro' | 'enterprise';
export type RoleName = 'owner' | 'admin' | 'member';
export type EnvironmentName = 'live' | 'test';

/**
 * Name → proto enum value. A number passes through unchanged, so a test can send
 * UNSPECIFIED or an unknown value on purpose.
 */
export const planValue = (p: PlanName | Plan): Plan =>
  typeof p === 'number' ? p : Plan[`PLAN_${p.toUpperCase()}` as keyof typeof Plan];
export const roleValue = (r: RoleName | Role): Role =>
  typeof r === 'number' ? r : Role[`ROLE_${r.toUpperCase()}` as keyof typeof Role];
export const environmentValue = (e: EnvironmentName | Environment): Environment =>
  typeof e === 'number'
    ? e
    : Environment[`ENVIRONMENT_${e.toUpperCase()}` as keyof typeof Environment];
export const resourceValue = (r: ResourceName | Resource): Resource =>
  typeof r === 'number' ? r : Resource[`RESOURCE_${r.toUpperCase()}` as keyof typeof Resource];

/** Proto enum value → name ("plus"), or undefined for UNSPECIFIED and unknown values. */
export function planName(value: Plan): PlanName | undefined {
  const names: PlanName[] = ['free', 'plus', 'pro', 'enterprise'];
  return names.find((n) => planValue(n) === value);
}

/** The record inside a ResourceRecord, whichever of the six it is. */
export function recordValue(record: ResourceRecord): Record<string, unknown> {
  if (record.kind === undefined) throw new Error('ResourceRecord without a record');
  return record.kind.value as unknown as Record<string, unknown>;
}

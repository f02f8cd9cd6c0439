import { Environment, Plan, Role } from '@brand/proto/access/v1';

/**
 * The words operators type (plus, live, owner) and the generated proto enums they stand
 * for. One table per enum, so the CLI's choices and the wire values cannot drift apart.
 */
const PLANS = {
  free: Plan.PLAN_FREE,
  plus: Plan.PLAN_PLUS,
  pro: Plan.PLAN_PRO,
  enterprise: Plan.PLAN_ENTERPRISE,
} as const satisfies Record<string, Plan>;

const ENVIRONMENTS = {
  live: Environment.ENVIRONMENT_LIVE,
  test: Environment.ENVIRONMENT_TEST,
} as const satisfies Record<string, Environment>;

const ROLES = {
  owner: Role.ROLE_OWNER,
  admin: Role.ROLE_ADMIN,
  member: Role.ROLE_MEMBER,
} as const satisfies Record<string, Role>;

export type PlanName = keyof typeof PLANS;
export type EnvironmentName = keyof typeof ENVIRONMENTS;
export type RoleName = keyof typeof ROLES;

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];
export const ENVIRONMENT_NAMES = Object.keys(ENVIRONMENTS) as EnvironmentName[];
export const ROLE_NAMES = Object.keys(ROLES) as RoleName[];

export const planToProto = (name: PlanName): Plan => PLANS[name];
export const environmentToProto = (name: EnvironmentName): Environment => ENVIRONMENTS[name];
export const roleToProto = (name: RoleName): Role => ROLES[name];

/** The operator's word for a wire value; "unspecified" for UNSPECIFIED or unknown numbers. */
function nameOf(table: Record<string, number>, value: number): string {
  return Object.keys(table).find((name) => table[name] === value) ?? 'unspecified';
}

export const planName = (value: Plan): string => nameOf(PLANS, value);
export const environmentName = (value: Environment): string => nameOf(ENVIRONMENTS, value);
export const roleName = (value: Role): string => nameOf(ROLES, value);

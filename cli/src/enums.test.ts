import { Environment, Plan, Role } from '@brand/proto/access/v1';
import {
  ENVIRONMENT_NAMES,
  environmentName,
  environmentToProto,
  PLAN_NAMES,
  planName,
  planToProto,
  ROLE_NAMES,
  roleName,
  roleToProto,
} from './enums';

describe('enum mapping', () => {
  it('maps every operator word to its generated enum and back', () => {
    for (const p of PLAN_NAMES) expect(planName(planToProto(p))).toBe(p);
    for (const e of ENVIRONMENT_NAMES) expect(environmentName(environmentToProto(e))).toBe(e);
    for (const r of ROLE_NAMES) expect(roleName(roleToProto(r))).toBe(r);
    expect(planToProto('plus')).toBe(Plan.PLAN_PLUS);
    expect(environmentToProto('test')).toBe(Environment.ENVIRONMENT_TEST);
    expect(roleToProto('owner')).toBe(Role.ROLE_OWNER);
  });

  it('covers every generated value except UNSPECIFIED', () => {
    const real = (e: Record<string, string | number>): number[] =>
      Object.values(e).filter((v): v is number => typeof v === 'number' && v > 0);
    expect(PLAN_NAMES.map(planToProto)).toEqual(real(Plan));
    expect(ENVIRONMENT_NAMES.map(environmentToProto)).toEqual(real(Environment));
    expect(ROLE_NAMES.map(roleToProto)).toEqual(real(Role));
  });

  it('names UNSPECIFIED and unknown values "unspecified"', () => {
    expect(planName(Plan.PLAN_UNSPECIFIED)).toBe('unspecified');
    expect(roleName(99 as Role)).toBe('unspecified');
  });
});

import { AppError } from '../errors/appError';
import { authorize, type Actor } from './actor';
import { CONSOLE_ACTIONS, CONSOLE_PERMISSIONS, roleAllows } from './permissions';

const member = (role: 'owner' | 'admin' | 'member', brand = 'br_a'): Actor => ({
  kind: 'member',
  member: {
    brand_id: brand,
    member_id: 'mem_x',
    email: 'x@y.z',
    role,
    tier: 'plus',
    iat: 1,
    exp: 2,
  },
});
const notFound = () => new AppError('not_found', 'No such thing.');

/** The code authorize() threw, or 'ok'. */
const codeOf = (...args: Parameters<typeof authorize>): string => {
  try {
    authorize(...args);
    return 'ok';
  } catch (err) {
    return (err as AppError).code;
  }
};

describe('the permission table', () => {
  it('lets owners do everything', () => {
    for (const action of CONSOLE_ACTIONS) expect(roleAllows('owner', action)).toBe(true);
  });

  it('gives admins and members reading only, and never the member list', () => {
    for (const role of ['admin', 'member'] as const) {
      const allowed = CONSOLE_ACTIONS.filter((a) => roleAllows(role, a));
      expect(allowed).toEqual([
        'keys.read',
        'receivers.read',
        'receivers.health',
        'deliveries.read',
        'plans.read',
        'activity.read',
        'audit_streams.read',
        'usage.read',
        'requests.read',
      ]);
    }
    expect(CONSOLE_PERMISSIONS['members.read']).toEqual(['owner']);
    // Why a key was refused is for owners' eyes only (issue 26).
    expect(CONSOLE_PERMISSIONS['requests.reasons']).toEqual(['owner']);
  });
});

describe('authorize', () => {
  it('refuses another brand with the not-found error, whatever the role', () => {
    expect(codeOf(member('owner', 'br_b'), 'keys.read', 'br_a', notFound)).toBe('not_found');
  });

  it('refuses a role the table does not allow with insufficient_permission', () => {
    expect(codeOf(member('admin'), 'keys.create', 'br_a', notFound)).toBe(
      'insufficient_permission',
    );
    expect(codeOf(member('admin'), 'keys.read', 'br_a', notFound)).toBe('ok');
  });

  it('lets operators through and refuses services and the bare console', () => {
    expect(codeOf({ kind: 'operator' }, 'members.manage', 'br_a', notFound)).toBe('ok');
    for (const kind of ['service', 'console'] as const) {
      expect(codeOf({ kind }, 'keys.read', 'br_a', notFound)).toBe('insufficient_permission');
    }
  });
});

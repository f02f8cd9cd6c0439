import { groupsOfClaim } from './jitMembership';
import { roleFromGroups } from './membershipSync';

describe('roleFromGroups', () => {
  const mappings = [
    { group_key: 'Brand Admins', role: 'admin' as const },
    { group_key: '0c1f-entra-object-id', role: 'owner' as const },
    { group_key: 'Readers', role: 'member' as const },
  ];

  it('is the highest role mapped to any of the groups, compared without case', () => {
    expect(roleFromGroups(['brand admins', 'Readers'], mappings)).toBe('admin');
    expect(roleFromGroups(['Readers', '0C1F-ENTRA-OBJECT-ID'], mappings)).toBe('owner');
  });

  it('is member when no group is mapped, or there are none', () => {
    expect(roleFromGroups(['Everyone'], mappings)).toBe('member');
    expect(roleFromGroups([], mappings)).toBe('member');
    expect(roleFromGroups(['Brand Admins'], [])).toBe('member');
  });
});

describe('groupsOfClaim', () => {
  it('reads a list of strings, or one string, and nothing else', () => {
    expect(groupsOfClaim(['a', 'b'])).toEqual(['a', 'b']);
    expect(groupsOfClaim('a')).toEqual(['a']);
    expect(groupsOfClaim(undefined)).toEqual([]);
    expect(groupsOfClaim({ a: 1 })).toEqual([]);
    expect(groupsOfClaim(['a', 2, null, { x: 1 }])).toEqual(['a']);
  });

  it('drops overlong values and keeps at most 500 groups', () => {
    expect(groupsOfClaim(['x'.repeat(257), 'ok'])).toEqual(['ok']);
    expect(groupsOfClaim(Array.from({ length: 900 }, (_, i) => `g${i}`))).toHaveLength(500);
  });
});

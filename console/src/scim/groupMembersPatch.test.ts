import { applyMemberSteps, memberStepsOf } from './groupMembersPatch';

const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH], Operations });

describe('memberStepsOf', () => {
  it('reads the member changes Okta and Entra ID send', () => {
    expect(
      memberStepsOf(
        patch(
          { op: 'Add', path: 'members', value: [{ value: 'scu_a1' }, { value: 'scu_b2' }] },
          { op: 'Remove', path: 'members', value: [{ value: 'scu_c3' }] },
          { op: 'remove', path: 'members[value eq "scu_d4"]' },
          { op: 'remove', path: 'Members[Value eq "scu_e5"]' },
          { op: 'replace', path: 'members', value: [{ value: 'scu_f6', display: 'f@x.test' }] },
          { op: 'remove', path: 'members' },
        ),
      ),
    ).toEqual([
      { kind: 'add', ids: ['scu_a1', 'scu_b2'] },
      { kind: 'remove', ids: ['scu_c3'] },
      { kind: 'remove', ids: ['scu_d4'] },
      { kind: 'remove', ids: ['scu_e5'] },
      { kind: 'replace', ids: ['scu_f6'] },
      { kind: 'removeAll' },
    ]);
  });

  it('leaves anything else to scimmy', () => {
    for (const body of [
      patch({ op: 'replace', path: 'displayName', value: 'X' }),
      patch(
        { op: 'add', path: 'members', value: [{ value: 'scu_a' }] },
        { op: 'replace', value: {} },
      ),
      patch({ op: 'add', path: 'members', value: [null] }),
      patch({ op: 'add', path: 'members', value: [{ value: 'not-an-id' }] }),
      patch({ op: 'add', path: 'members', value: { value: 'scu_a' } }),
      patch({ op: 'add', value: { members: [{ value: 'scu_a' }] } }),
      patch({ op: 'remove', path: 'members[value eq "scu_a"]', value: [] }),
      patch({ op: 'remove', path: 'members[display eq "a"]' }),
      patch({ op: 'move', path: 'members', value: [] }),
      patch(),
      { Operations: [{ op: 'add', path: 'members', value: [{ value: 'scu_a' }] }] },
      null,
      [],
    ]) {
      expect({ body, steps: memberStepsOf(body) }).toEqual({ body, steps: undefined });
    }
  });
});

describe('applyMemberSteps', () => {
  it('applies the steps in order, each id once, and says when nothing changed', () => {
    const current = ['scu_1', 'scu_2', 'scu_3'];
    expect(
      applyMemberSteps(current, [
        { kind: 'add', ids: ['scu_2', 'scu_4'] },
        { kind: 'remove', ids: ['scu_1', 'scu_9'] },
      ]),
    ).toEqual(['scu_2', 'scu_3', 'scu_4']);
    expect(applyMemberSteps(current, [{ kind: 'remove', ids: ['scu_9'] }])).toBeUndefined();
    expect(applyMemberSteps(current, [{ kind: 'add', ids: ['scu_1'] }])).toBeUndefined();
    expect(applyMemberSteps(current, [{ kind: 'removeAll' }])).toEqual([]);
    expect(
      applyMemberSteps(current, [{ kind: 'removeAll' }, { kind: 'add', ids: ['scu_5'] }]),
    ).toEqual(['scu_5']);
    expect(applyMemberSteps(current, [{ kind: 'replace', ids: ['scu_3', 'scu_1'] }])).toEqual([
      'scu_3',
      'scu_1',
    ]);
  });
});

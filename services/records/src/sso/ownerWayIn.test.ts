import { assertOwnersKeepAWayIn } from './ownerWayIn';

const required = { name: 'Acme', sign_in_policy: 'sso' as const };
const owners = ['ana@acme.example', 'ben@gmail.example'];
const kept = { enabled: true, verifiedDomains: ['acme.example'], providerChanged: false };

const refusal = (fn: () => void) => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err as { code: string; message: string };
  }
};

describe('assertOwnersKeepAWayIn', () => {
  it('allows a change that keeps an owner’s verified domain, enabled, at the same provider', () => {
    expect(refusal(() => assertOwnersKeepAWayIn(required, owners, kept))).toBeUndefined();
  });

  it('allows anything on a brand that does not require single sign-on', () => {
    for (const policy of ['any', 'passkey_or_sso'] as const)
      expect(
        refusal(() =>
          assertOwnersKeepAWayIn({ name: 'Acme', sign_in_policy: policy }, owners, undefined),
        ),
      ).toBeUndefined();
  });

  it.each([
    ['removing it', undefined, /requires single sign-on: let members sign in another way/],
    ['disabling it', { ...kept, enabled: false }, /requires single sign-on: let members/],
    [
      'another provider',
      { ...kept, providerChanged: true },
      /nobody has signed in through another provider/,
    ],
    [
      'dropping the owners’ domain',
      { ...kept, verifiedDomains: ['nobody.example'] },
      /no current owner could sign in \(owners’ domains: acme\.example, gmail\.example; verified domains kept: nobody\.example\)/,
    ],
    ['no verified domain left', { ...kept, verifiedDomains: [] }, /verified domains kept: none/],
  ])('refuses %s while it is required', (_what, after, why) => {
    const err = refusal(() => assertOwnersKeepAWayIn(required, owners, after));
    expect(err?.code).toBe('sso_required');
    expect(err?.message).toMatch(why);
  });
});

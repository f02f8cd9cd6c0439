import type { SignInMethod } from '../sessions/signInClient';

/**
 * A brand's sign-in policy, the one place that says which ways in a brand admits. Sessions
 * (resolving one, opening one, minting a link), passkeys, single sign-on and the operator's
 * access service all ask here; nothing else reads `brands.sign_in_policy` to decide.
 *
 * - 'any': every way in (an emailed link, a passkey, the brand's own single sign-on);
 * - 'passkey_or_sso': a passkey or the brand's own single sign-on;
 * - 'sso': the brand's own single sign-on alone.
 */
export const SIGN_IN_POLICIES = ['any', 'passkey_or_sso', 'sso'] as const;
export type SignInPolicy = (typeof SIGN_IN_POLICIES)[number];

/**
 * What an operator may set (brandctl, the access service): requiring single sign-on is a brand
 * owner's act in the console, with its proofs (setBrandSignInPolicy.ts).
 */
export const OPERATOR_SIGN_IN_POLICIES = ['any', 'passkey_or_sso'] as const;

/** What the policy reads of a brand (a BrandRow is one). */
export interface PolicyBrand {
  id: string;
  name: string;
  sign_in_policy: SignInPolicy;
}

/** The activity's words for each policy (the console's change and an operator's). */
export const POLICY_SUMMARIES: Record<SignInPolicy, string> = {
  any: 'Members may sign in by emailed link again',
  passkey_or_sso: 'Members must sign in with a passkey',
  sso: 'Members must sign in with single sign-on',
};

/** How a session was opened, as a brand's sign-in policy judges it. */
export interface OpenedBy {
  method: SignInMethod;
  /** The brand whose single sign-on opened it; null for a link or a passkey. */
  ssoBrandId: string | null;
}

/** Whether a brand's sign-in policy admits a session opened this way. */
function brandAdmits(brand: PolicyBrand, opened: OpenedBy): boolean {
  const ownSso = opened.method === 'sso' && opened.ssoBrandId === brand.id;
  switch (brand.sign_in_policy) {
    case 'any':
      return true;
    case 'passkey_or_sso':
      return opened.method === 'passkey' || ownSso;
    case 'sso':
      return ownSso;
  }
}

/**
 * Whether mailing an emailed link serves a member of the brand: it opens the brand, or, where a
 * passkey is required, it is how a member without one signs in to add their first. Where the
 * brand admits its own single sign-on alone, nothing a link opens leads into it, so none is mailed.
 */
export function linkServes(brand: PolicyBrand): boolean {
  return brand.sign_in_policy !== 'sso';
}

/**
 * Why a brand refuses a way of signing in, as a sentence for the member and the brand's
 * activity; undefined when it admits it. One reading for the sign-in (which records the
 * refusal) and for every later request (which refuses the session).
 */
export function methodRefusal(brand: PolicyBrand, opened: OpenedBy): string | undefined {
  if (brandAdmits(brand, opened)) return undefined;
  return brand.sign_in_policy === 'sso'
    ? `${brand.name} requires single sign-on; sign in through its identity provider.`
    : `${brand.name} requires signing in with a passkey; an emailed link does not open it.`;
}

import type { BrandRow } from '../access/brandRepo';
import type { SignInMethod } from './signInClient';

/**
 * Why a brand refuses a way of signing in (its sign-in policy), as a sentence for the member
 * and the brand's activity; undefined when it accepts it. One reading for the sign-in (which
 * records the refusal, issue 42) and for every later request (which refuses the session).
 */
export function methodRefusal(
  brand: Pick<BrandRow, 'id' | 'name' | 'sign_in_policy'>,
  way: { method: SignInMethod; ssoBrandId: string | null },
): string | undefined {
  const policy = brand.sign_in_policy;
  if (policy === 'passkey_or_sso' && way.method === 'link') {
    return `${brand.name} requires signing in with a passkey; an emailed link does not open it.`;
  }
  if (policy === 'sso' && !(way.method === 'sso' && way.ssoBrandId === brand.id)) {
    return `${brand.name} requires single sign-on; sign in through its identity provider.`;
  }
  return undefined;
}

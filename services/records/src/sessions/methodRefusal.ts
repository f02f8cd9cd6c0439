import type { BrandRow } from '../access/brandRepo';
import { brandAdmits, type OpenedBy } from './brandAdmits';

/**
 * Why a brand refuses a way of signing in (its sign-in policy, brandAdmits), as a sentence for
 * the member and the brand's activity; undefined when it admits it. One reading for the sign-in
 * (which records the refusal, issue 42) and for every later request (which refuses the session).
 */
export function methodRefusal(brand: BrandRow, opened: OpenedBy): string | undefined {
  if (brandAdmits(brand, opened)) return undefined;
  return brand.sign_in_policy === 'sso'
    ? `${brand.name} requires single sign-on; sign in through its identity provider.`
    : `${brand.name} requires signing in with a passkey; an emailed link does not open it.`;
}

import type { BrandRow } from '../access/brandRepo';
import type { SignInMethod } from './signInClient';

/** How a session was opened, as a brand's sign-in policy judges it. */
export interface OpenedBy {
  method: SignInMethod;
  /** The brand whose single sign-on opened it; null for a link or a passkey. */
  ssoBrandId: string | null;
}

/**
 * Whether a brand's sign-in policy admits a session opened this way: 'any' admits every way in;
 * 'passkey_or_sso' a passkey or the brand's own single sign-on; 'sso' the brand's own single
 * sign-on alone. Resolving a session and minting a sign-in link both ask here, so the rule is
 * written once.
 */
export function brandAdmits(brand: BrandRow, opened: OpenedBy): boolean {
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
export function linkServes(brand: BrandRow): boolean {
  return brand.sign_in_policy !== 'sso';
}

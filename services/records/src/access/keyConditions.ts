import { isPaidTier } from '@brand/shared/enums';
import type { KeyEnvironment } from '@brand/shared/keys';
import type { BrandRow } from './brandRepo';

/**
 * Why this brand cannot be given a key of this environment and these permissions now (empty
 * when it can): creating a key and rolling one (which creates its replacement) both ask.
 */
export function unmetKeyConditions(
  brand: Pick<BrandRow, 'tier' | 'verified'>,
  environment: KeyEnvironment,
  permissions: readonly string[],
): string[] {
  const unmet: string[] = [];
  if (!isPaidTier(brand.tier)) {
    unmet.push(`the brand is on the ${brand.tier} plan; API keys need Plus, Pro or Enterprise`);
  }
  if (!brand.verified) unmet.push('the brand is not verified yet');
  if (permissions.includes('campaigns:prepare') && environment !== 'live') {
    unmet.push('campaigns:prepare can only be granted to live keys');
  }
  return unmet;
}

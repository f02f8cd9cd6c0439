import type { ApiKey, Brand, Member } from '@brand/proto/access/v1';
import type { AdminClient } from './adminClient';
import type { EnvironmentName, TierName } from './protoEnums';

export interface BrandWithKey {
  brand: Brand;
  owner: Member;
  key: ApiKey;
  /** The full API key (`bk_live_...`), as a client would send it. */
  secret: string;
}

/**
 * Creates a brand (Plus and verified unless told otherwise) and one key created by its
 * owner. Rejects with the AppError of CreateKey when the options make a key impossible
 * (a free-tier or unverified brand): create the brand with `admin.createBrand` for those cases.
 */
export async function makeBrandWithKey(
  admin: AdminClient,
  opts: {
    name?: string;
    tier?: TierName;
    verified?: boolean;
    ownerEmail?: string;
    keyName?: string;
    environment?: EnvironmentName;
    permissions?: string[];
  } = {},
): Promise<BrandWithKey> {
  const { brand, owner } = await admin.createBrand({
    name: opts.name,
    tier: opts.tier ?? 'plus',
    verified: opts.verified ?? true,
    ownerEmail: opts.ownerEmail,
  });
  const { key, secret } = await admin.createKey({
    brandId: brand.id,
    actorEmail: owner.email,
    name: opts.keyName,
    environment: opts.environment ?? 'live',
    permissions: opts.permissions,
  });
  return { brand, owner, key, secret };
}

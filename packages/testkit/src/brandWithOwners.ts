import type { Brand, Member } from '@brand/proto/access/v1';
import type { AdminClient } from './adminClient';
import type { ActingMember, ConsoleClient } from './consoleClient';
import { randomHex } from './random';

/**
 * A Plus brand whose owners are named `names` (the first creates the brand), each with an email
 * of its own, and those in `signedIn` signed in through the console client and acting for it:
 * the set-up of every test of two owners changing the same thing at once.
 */
export async function brandWithOwners<N extends string, S extends N>(
  admin: AdminClient,
  console_: ConsoleClient,
  names: readonly [N, ...N[]],
  signedIn: readonly S[],
): Promise<{ brand: Brand; owner: Record<N, Member>; as: Record<S, ActingMember> }> {
  const [first, ...rest] = names;
  const email = (name: string) => `${name}-${randomHex(4)}@brand.test`;
  const made = await admin.createBrand({ tier: 'plus', ownerEmail: email(first) });
  const owner = { [first]: made.owner } as Record<N, Member>;
  for (const name of rest) {
    owner[name] = await admin.addMember({
      brandId: made.brand.id,
      email: email(name),
      role: 'owner',
    });
  }
  const as = {} as Record<S, ActingMember>;
  for (const name of signedIn) {
    const { sessionToken } = await console_.signIn(owner[name].email);
    as[name] = await console_.actAs(sessionToken, made.brand.id);
  }
  return { brand: made.brand, owner, as };
}

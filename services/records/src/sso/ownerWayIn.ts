import { AppError } from '@brand/shared/errors';
import type { SignInPolicy } from '../signInPolicy/policy';

/** A brand's single sign-on as a change would leave it. */
export interface ConnectionAfter {
  /** Absent when the change removes the connection. */
  enabled?: boolean;
  /** Its verified domains that the change keeps. */
  verifiedDomains: readonly string[];
  /** The change points it at another issuer or client: nobody has signed in through that yet. */
  providerChanged: boolean;
}

const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1);

/**
 * No lock-out by configuration (issue 42 part 4). While a brand requires single sign-on, links
 * and passkeys do not open it, so a change to its connection must leave at least one current
 * owner able to sign in through it: the connection kept and enabled, the same provider (a new
 * one has let nobody in yet), and an owner's address at one of the verified domains it keeps.
 * A brand that does not require it has other ways in, so any change is allowed. Throws
 * sso_required saying what would happen and what to do instead.
 */
export function assertOwnersKeepAWayIn(
  brand: { name: string; sign_in_policy: SignInPolicy },
  ownerEmails: readonly string[],
  after: ConnectionAfter | undefined,
): void {
  if (brand.sign_in_policy !== 'sso') return;
  const instead = 'let members sign in another way first (Members, “How members sign in”).';
  if (!after || after.enabled !== true) {
    throw new AppError('sso_required', `${brand.name} requires single sign-on: ${instead}`);
  }
  if (after.providerChanged) {
    throw new AppError(
      'sso_required',
      `${brand.name} requires single sign-on, and nobody has signed in through another provider yet: ${instead} Then change the provider, sign in through it and require it again.`,
    );
  }
  const kept = new Set(after.verifiedDomains);
  if (!ownerEmails.some((email) => kept.has(domainOf(email)))) {
    throw new AppError(
      'sso_required',
      `${brand.name} requires single sign-on, and after this change no current owner could sign in (owners’ domains: ${[...new Set(ownerEmails.map(domainOf))].join(', ')}; verified domains kept: ${[...kept].join(', ') || 'none'}). Keep an owner’s verified domain, or ${instead}`,
    );
  }
}

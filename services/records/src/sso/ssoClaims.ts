import { emailAddress } from '@brand/shared/console';

/**
 * The address an identity provider vouched for, from its claims: `email_verified` must be
 * true (a provider that lets people type any address proves nothing) and the address's
 * domain one the brand has verified by DNS, exactly (a subdomain is another domain).
 * Throws otherwise; the caller turns every failure into one refusal.
 */
export function verifiedEmailOf(
  claims: { email?: unknown; email_verified?: unknown },
  verifiedDomains: readonly string[],
): string {
  if (claims.email_verified !== true) throw new Error('email not verified');
  const parsed = emailAddress.safeParse(claims.email);
  if (!parsed.success) throw new Error('no email');
  const email = parsed.data;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!verifiedDomains.includes(domain)) throw new Error(`domain ${domain} not allowed`);
  return email;
}

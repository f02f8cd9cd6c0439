import { z } from 'zod';

const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;

/**
 * Starting a single sign-on: the address (its domain finds the brand, and the provider is
 * given it as a login hint) and, from a brand's SSO link, the brand.
 */
export const SsoStartForm = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, 'An email address is at most 254 characters.')
    // blank is allowed (a brand's link names the brand); the check is not an either-or rule,
    // whose failure zod words only as "Invalid input"
    .refine((s) => s === '' || z.email().safeParse(s).success, 'Enter your work email address.'),
  brand: z
    .string()
    .refine((s) => s === '' || BRAND_ID.test(s), 'That sign-in link names no brand.')
    .default(''),
});

/** A brand id from an SSO link's query, or '' (anything else is ignored). */
export const brandOfQuery = (q: unknown): string =>
  typeof q === 'string' && BRAND_ID.test(q) ? q : '';

/** The owner's form on the brand's Single sign-on page. */
export const ConnectionForm = z.object({
  issuer: z
    .string()
    .trim()
    .min(1, 'Enter the issuer URL of your identity provider.')
    .max(512, 'The issuer is at most 512 characters.'),
  client_id: z
    .string()
    .trim()
    .min(1, 'Enter the client id.')
    .max(255, 'The client id is at most 255 characters.'),
  client_secret: z.string().max(1024, 'The client secret is at most 1024 characters.').default(''),
  // One domain per line or comma-separated, as people paste them.
  allowed_domains: z
    .string()
    .max(2_000, 'The allowed email domains are at most 2000 characters in all.')
    .transform((s) =>
      s
        .split(/[\s,]+/)
        .map((d) => d.trim().toLowerCase())
        .filter((d) => d !== ''),
    ),
  enabled: z.literal('on').optional(),
});

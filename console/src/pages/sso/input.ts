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
    .max(254)
    .pipe(z.email('Enter your work email address.'))
    .or(z.literal('')),
  brand: z.string().regex(BRAND_ID).or(z.literal('')).default(''),
});

/** A brand id from an SSO link's query, or '' (anything else is ignored). */
export const brandOfQuery = (q: unknown): string =>
  typeof q === 'string' && BRAND_ID.test(q) ? q : '';

/** The owner's form on the brand's Single sign-on page. */
export const ConnectionForm = z.object({
  issuer: z.string().trim().min(1, 'Enter the issuer URL of your identity provider.').max(512),
  client_id: z.string().trim().min(1, 'Enter the client id.').max(255),
  client_secret: z.string().max(1024).default(''),
  // One domain per line or comma-separated, as people paste them.
  allowed_domains: z
    .string()
    .max(2_000)
    .transform((s) =>
      s
        .split(/[\s,]+/)
        .map((d) => d.trim().toLowerCase())
        .filter((d) => d !== ''),
    ),
  enabled: z.literal('on').optional(),
});

import { z } from 'zod';

/** An email address as members are stored: trimmed and lower-cased. */
export { emailAddress as email } from '@brand/shared/console';

export const brandId = z.string().regex(/^br_[A-Za-z0-9]{1,64}$/, 'must be a brand id (br_...)');

export const keyId = z.string().regex(/^key_[A-Za-z0-9]{1,64}$/, 'must be a key id (key_...)');

/** The furthest a key's expiry may be set: beyond it an expiry is a typo, not a plan. */
const MAX_EXPIRY_MS = 10 * 366 * 86_400_000;

/**
 * A key expiry given as an instant: RFC 3339 with an offset, in the future (to end a key now,
 * say now), at most ten years ahead. Empty means none (proto3 strings cannot be absent).
 */
export const keyExpiresAt = z
  .string()
  .trim()
  .transform((s) => (s === '' ? undefined : s))
  .pipe(
    z.iso
      .datetime({ offset: true, message: 'must be an RFC 3339 time, e.g. 2030-01-31T12:00:00Z' })
      .refine((s) => Date.parse(s) > Date.now(), 'must be in the future')
      .refine((s) => Date.parse(s) <= Date.now() + MAX_EXPIRY_MS, 'must be within 10 years')
      .optional(),
  );

import { z } from 'zod';

/** An email address as members are stored: trimmed and lower-cased. */
export const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');

export const brandId = z.string().regex(/^br_[A-Za-z0-9]{1,64}$/, 'must be a brand id (br_...)');

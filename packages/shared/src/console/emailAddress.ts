import { z } from 'zod';

/** An email address as members and actors are stored: trimmed and lower-cased. */
export const emailAddress = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');

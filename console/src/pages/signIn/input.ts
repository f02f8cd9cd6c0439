import { z } from 'zod';

/** The sign-in form: one address. */
export const SignInForm = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, 'An email address is at most 254 characters.')
    .pipe(z.email('Enter an email address, like you@brand.example.')),
});

/** A sign-in link token as records mints them (32 random bytes, base64url). */
export const LINK_TOKEN = /^[A-Za-z0-9_-]{20,128}$/;

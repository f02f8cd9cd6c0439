import { z } from 'zod';

/** A passkey id as records mints them; anything else is 404 at once. */
export const PASSKEY_ID = /^pk_[A-Za-z0-9]{1,64}$/;

/** The form that finishes adding a passkey: its name and the browser's answer (JSON). */
export const AddPasskeyForm = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Give the passkey a name, such as “Work laptop”.')
    .max(60, 'A passkey name is at most 60 characters.'),
  response: z.string().min(2, 'Your browser sent no passkey. Try again.').max(16_384),
});

/** The form that finishes a passkey sign-in: the browser's answer (JSON). */
export const PasskeySignInForm = z.object({
  response: z.string().min(2).max(16_384),
});

/** The owner's choice on the members page. */
export const SignInPolicyForm = z.object({
  policy: z.enum(['any', 'passkey_or_sso', 'sso'], 'Choose how members sign in.'),
});

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { AppError } from '@brand/shared/errors';

/** A browser's answer is a few hundred bytes to a few KB; anything bigger is not one. */
const MAX_ANSWER_BYTES = 16_384;
const B64URL = z
  .string()
  .regex(/^[A-Za-z0-9_-]*$/)
  .max(MAX_ANSWER_BYTES);

const RegistrationAnswer = z.object({
  id: B64URL.min(1),
  rawId: B64URL.min(1),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: B64URL,
    attestationObject: B64URL,
    transports: z.array(z.string().max(32)).max(8).optional(),
  }),
  clientExtensionResults: z.object({}).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

const AuthenticationAnswer = z.object({
  id: B64URL.min(1),
  rawId: B64URL.min(1),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: B64URL,
    authenticatorData: B64URL,
    signature: B64URL,
    userHandle: B64URL.optional(),
  }),
  clientExtensionResults: z.object({}).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

const malformed = (): AppError =>
  new AppError('validation_failed', 'response_json is not a WebAuthn answer of this ceremony.');

function parse<T>(json: string, schema: z.ZodType<T>): T {
  if (json.length > MAX_ANSWER_BYTES) throw malformed();
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw malformed();
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw malformed();
  return parsed.data;
}

/** navigator.credentials.create's answer, as @simplewebauthn/browser serialises it. */
export function registrationAnswerOf(json: string): RegistrationResponseJSON {
  return parse(json, RegistrationAnswer);
}

/** navigator.credentials.get's answer, as @simplewebauthn/browser serialises it. */
export function authenticationAnswerOf(json: string): AuthenticationResponseJSON {
  return parse(json, AuthenticationAnswer);
}

/**
 * The challenge the browser signed, read from clientDataJSON, so the stored challenge can be
 * taken (and so spent) before anything else is checked. "" when there is none to read; the
 * library checks the rest of clientDataJSON afterwards.
 */
export function signedChallengeOf(clientDataJSON: string): string {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (data as { challenge?: unknown }).challenge;
    return typeof challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(challenge)
      ? challenge
      : '';
  } catch {
    return '';
  }
}

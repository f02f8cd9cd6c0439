import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { parseAssertionPrivateKey, parseAssertionPublicKey } from '../console/memberAssertion';

/**
 * A PEM key from an environment variable. Multi-line values are awkward in env files, so
 * "\n" written literally is read as a newline.
 */
const pemKey = (parse: (pem: string) => KeyObject, what: string) =>
  z.string().transform((value, ctx) => {
    try {
      return parse(value.replaceAll('\\n', '\n'));
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be an Ed25519 ${what} key in PEM form` });
      return z.NEVER;
    }
  });

/**
 * The records service's key for signing member assertions (docs/console.md "How the
 * console acts for a member"); required when CONSOLE_TOKEN is set.
 */
export const assertionPrivateKeyEnv = {
  CONSOLE_ASSERTION_PRIVATE_KEY: pemKey(parseAssertionPrivateKey, 'private').optional(),
};

/**
 * The keys member assertions are checked with in webhooks and plans: records' public key
 * (a private key's PEM is accepted too and reduced to its public half), and former public
 * keys during a rotation; required when CONSOLE_TOKEN is set.
 */
export const assertionPublicKeyEnv = {
  CONSOLE_ASSERTION_PUBLIC_KEY: pemKey(parseAssertionPublicKey, 'public').optional(),
  /** Former public keys, each a PEM, separated by a blank-free "," (rotation). */
  CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const pems = value.split(',').filter((s) => s.trim() !== '');
      try {
        return pems.map((pem) => parseAssertionPublicKey(pem.replaceAll('\\n', '\n')));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be Ed25519 public keys in PEM form' });
        return z.NEVER;
      }
    }),
};

/**
 * A superRefine step: a service given CONSOLE_TOKEN must also have the assertion key named,
 * or it would accept the console's calls with nobody to act for.
 */
export function requireAssertionKeyWithConsoleToken(keyName: string) {
  return (env: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    if (env.CONSOLE_TOKEN !== undefined && env[keyName] === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [keyName],
        message: 'is required when CONSOLE_TOKEN is set',
      });
    }
  };
}

/** The assertion key variables, for refusePublishedSecrets (the CI key pair is published). */
export const ASSERTION_PUBLIC_KEY_NAMES = [
  'CONSOLE_ASSERTION_PUBLIC_KEY',
  'CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS',
] as const;

/** The public keys a service checks member assertions with: the current one first. */
export function assertionKeysOf(env: {
  CONSOLE_ASSERTION_PUBLIC_KEY?: KeyObject | undefined;
  CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS: KeyObject[];
}): KeyObject[] {
  const current = env.CONSOLE_ASSERTION_PUBLIC_KEY;
  return current ? [current, ...env.CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS] : [];
}

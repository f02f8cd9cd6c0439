import { createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { CallerTokens } from '../grpc/callerAuth';
import { commaListEnv } from './envTypes';

/**
 * Values that have appeared in this repository (the old committed local config, the test
 * harness): anyone can read them, so production refuses to start with any of them.
 */
export const PUBLISHED_SECRETS: readonly string[] = [
  'local-dev-internal-token-change-me',
  'local-dev-cursor-secret-change-me-0123456789',
  'test-internal-token-0123456789abcdef-0123',
  'test-admin-token-0123456789abcdef-0123456',
  'test-console-token-0123456789abcdef-01234',
  'test-cursor-secret-0123456789abcdef-0123456789',
  // the webhooks secret-encryption key of test stacks (32 bytes, base64)
  'dGVzdC13ZWJob29rLXNlY3JldC1rZXktMDEyMzQ1Njc=',
  // the chart's CI values (deploy/helm/brand-records/ci/inline-secrets-values.yaml)
  'ci-only-internal-token-0123456789abcdef',
  'ci-only-previous-internal-token-0123456789',
  'ci-only-admin-token-0123456789abcdef0123',
  'ci-only-cursor-secret-0123456789abcdef01',
  'ci-only-console-token-0123456789abcdef0',
  'Y2ktb25seS13ZWJob29rLWtleS0zMi1ieXRlcy0wMDA=',
  // and its member-assertion key pair (the PEM bodies: the keys' DER in base64)
  'MC4CAQAwBQYDK2VwBCIEICusk17lkCswC2rhYUjOV6gNHwRTN3Uku5vss9yRbrox',
  'MCowBQYDK2VwAyEABGSOwplRAniGFlb6u+yAmKHz+f7VRx3/jGsbZieXteY=',
  // the benchmark's stack (scripts/bench/lib/settings.mjs)
  'bench-internal-token-0123456789abcdef',
  'bench-admin-token-0123456789abcdef-0123',
  'bench-cursor-secret-0123456789abcdef-0123456789',
  // the examples the configuration tests use
  'an-internal-token-of-32-characters',
  'an-admin-token-of-at-least-32-characters',
  'a-console-token-of-at-least-32-characters',
  'a-cursor-secret-of-at-least-32-characters',
];

/** Whether `value` (a string, a PEM, or a parsed key) is, or holds, a published secret. */
function isPublished(value: unknown): boolean {
  if (typeof value === 'string') {
    if (PUBLISHED_SECRETS.includes(value)) return true;
    const pem = /-----BEGIN [A-Z ]+-----([\sA-Za-z0-9+/=]+?)-----END/.exec(
      value.replaceAll('\\n', '\n'),
    );
    return pem !== null && PUBLISHED_SECRETS.includes(pem[1]!.replace(/\s+/g, ''));
  }
  if (value instanceof KeyObject && value.asymmetricKeyType !== undefined) {
    const publicHalf = value.type === 'private' ? createPublicKey(value) : value;
    const ders = [publicHalf.export({ format: 'der', type: 'spki' })];
    if (value.type === 'private') ders.push(value.export({ format: 'der', type: 'pkcs8' }));
    return ders.some((der) => publishedKeyDers().has(der.toString('base64')));
  }
  return false;
}

let keyDers: Set<string> | undefined;
/** The published keys' DER (base64), with each published private key's public half. */
function publishedKeyDers(): Set<string> {
  if (keyDers) return keyDers;
  keyDers = new Set();
  for (const body of PUBLISHED_SECRETS) {
    const der = Buffer.from(body, 'base64');
    for (const parse of [
      () => createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })),
      () => createPublicKey({ key: der, format: 'der', type: 'spki' }),
    ]) {
      try {
        keyDers.add(parse().export({ format: 'der', type: 'spki' }).toString('base64'));
        keyDers.add(body);
      } catch {
        // not a key of that form: a token
      }
    }
  }
  return keyDers;
}

/**
 * The caller credentials of a gRPC service (docs/internals.md "Internal credentials"), to spread into
 * its Env schema. Each list is the current token first, then former ones still accepted
 * during a rotation.
 */
export const callerTokenEnv = {
  /** Presented by internal callers: the gateway, other services. */
  INTERNAL_TOKEN: z.string().min(32),
  /** Former internal tokens, accepted until every caller has the new one (comma-separated). */
  INTERNAL_TOKENS_PREVIOUS: commaListEnv,
  /** Presented by operators (brandctl) on admin RPCs; also passes internal checks. */
  ADMIN_TOKEN: z.string().min(32),
  ADMIN_TOKENS_PREVIOUS: commaListEnv,
  /**
   * Presented by the console (the Developers area) with a member assertion; unset, the
   * service refuses every console call.
   */
  CONSOLE_TOKEN: z.string().min(32).optional(),
  CONSOLE_TOKENS_PREVIOUS: commaListEnv,
};

/** The names of the caller-credential variables, for refusePublishedSecrets. */
export const CALLER_TOKEN_NAMES = [
  'INTERNAL_TOKEN',
  'INTERNAL_TOKENS_PREVIOUS',
  'ADMIN_TOKEN',
  'ADMIN_TOKENS_PREVIOUS',
  'CONSOLE_TOKEN',
  'CONSOLE_TOKENS_PREVIOUS',
] as const;

export function callerTokensOf(env: {
  INTERNAL_TOKEN: string;
  INTERNAL_TOKENS_PREVIOUS: string[];
  ADMIN_TOKEN: string;
  ADMIN_TOKENS_PREVIOUS: string[];
  CONSOLE_TOKEN?: string | undefined;
  CONSOLE_TOKENS_PREVIOUS: string[];
}): CallerTokens {
  return {
    internal: [env.INTERNAL_TOKEN, ...env.INTERNAL_TOKENS_PREVIOUS],
    admin: [env.ADMIN_TOKEN, ...env.ADMIN_TOKENS_PREVIOUS],
    console:
      env.CONSOLE_TOKEN === undefined ? [] : [env.CONSOLE_TOKEN, ...env.CONSOLE_TOKENS_PREVIOUS],
  };
}

/**
 * A superRefine step: with NODE_ENV=production, every named secret that is one of the
 * PUBLISHED_SECRETS is an issue on that variable.
 */
export function refusePublishedSecrets<Name extends string>(names: readonly Name[]) {
  return (
    env: { NODE_ENV: string } & Partial<Record<Name, unknown>>,
    ctx: z.RefinementCtx,
  ): void => {
    if (env.NODE_ENV !== 'production') return;
    for (const name of names) {
      const value = env[name];
      const values = Array.isArray(value) ? value : [value];
      if (values.some(isPublished)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'a value published in the repository must not be used in production',
        });
      }
    }
  };
}

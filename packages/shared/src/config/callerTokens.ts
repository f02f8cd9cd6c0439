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
];

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
      if (values.some((v) => typeof v === 'string' && PUBLISHED_SECRETS.includes(v))) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'a value published in the repository must not be used in production',
        });
      }
    }
  };
}

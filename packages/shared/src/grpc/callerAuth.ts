import { createHash, timingSafeEqual } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import { AppError } from '../errors';
import { INTERNAL_TOKEN_METADATA } from '../grpcClient/metadata';

/**
 * Who may call an RPC. `internal`: any internal caller (the gateway, another service)
 * presenting an internal token; `admin`: operators (brandctl) presenting an admin token.
 * An admin token also passes `internal` checks, so brandctl can read what it administers.
 * `console`: only the console (signing members in). `developers`: the Developers area,
 * either an operator (admin token) or the console acting for a member (console token plus
 * a member assertion, checked by unary()).
 */
export type AccessLevel = 'internal' | 'admin' | 'console' | 'developers';

/** The credential class a caller presented. */
export type CallerClass = 'internal' | 'admin' | 'console';

/**
 * The tokens a service accepts: the current one first, then previous ones during a rotation.
 * `console` may be empty: the service then refuses every console call.
 */
export interface CallerTokens {
  internal: readonly string[];
  admin: readonly string[];
  console: readonly string[];
}

/** Which credential classes pass each access level. */
const ACCEPTS: Record<AccessLevel, readonly CallerClass[]> = {
  internal: ['internal', 'admin'],
  admin: ['admin'],
  console: ['console'],
  developers: ['admin', 'console'],
};

/** Shortest token accepted; generated tokens are 43 characters of base64url (256 bits). */
export const MIN_TOKEN_LENGTH = 32;

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Checks the caller's credential on every RPC (the network is never trusted:
 * docs/internals.md#internal-credentials). Tokens are compared as SHA-256 digests with timingSafeEqual, so neither
 * content nor length leaks through timing. Construction throws on a short or missing token,
 * so a misconfigured service fails at startup, not on its first call.
 */
export class CallerAuth {
  private readonly internal: Buffer[];
  private readonly admin: Buffer[];
  private readonly console: Buffer[];

  constructor(tokens: CallerTokens) {
    for (const token of [...tokens.internal, ...tokens.admin, ...tokens.console]) {
      if (token.length < MIN_TOKEN_LENGTH) {
        throw new Error(`caller tokens must be at least ${MIN_TOKEN_LENGTH} characters`);
      }
    }
    if (tokens.internal.length === 0 || tokens.admin.length === 0) {
      throw new Error('an internal token and an admin token are required');
    }
    this.internal = tokens.internal.map(digest);
    this.admin = tokens.admin.map(digest);
    this.console = tokens.console.map(digest);
    const all = [...this.internal, ...this.admin, ...this.console].map((d) => d.toString('hex'));
    if (new Set(all).size !== all.length) {
      throw new Error('the internal, admin and console tokens must all differ');
    }
  }

  /**
   * Returns the caller's credential class, or throws AppError unauthenticated (no or
   * unknown token) or insufficient_permission (a known token of a class this level does not
   * accept, e.g. an internal token on an admin RPC). Every accepted token is compared, so
   * timing does not tell which list matched.
   */
  check(metadata: Metadata, level: AccessLevel): CallerClass {
    const presented = metadata.get(INTERNAL_TOKEN_METADATA)[0];
    if (typeof presented !== 'string' || presented === '') {
      throw new AppError(
        'unauthenticated',
        `This RPC requires the caller's credential (${INTERNAL_TOKEN_METADATA} metadata).`,
      );
    }
    const p = digest(presented);
    const isAdmin = matchesAny(this.admin, p);
    const isInternal = matchesAny(this.internal, p);
    const isConsole = matchesAny(this.console, p);
    const caller: CallerClass | undefined = isAdmin
      ? 'admin'
      : isInternal
        ? 'internal'
        : isConsole
          ? 'console'
          : undefined;
    if (caller === undefined) {
      throw new AppError('unauthenticated', 'The caller credential is not valid.');
    }
    if (ACCEPTS[level].includes(caller)) return caller;
    throw new AppError(
      'insufficient_permission',
      level === 'admin'
        ? 'This admin RPC requires the admin token.'
        : `This RPC does not accept the ${caller} credential.`,
    );
  }
}

function matchesAny(accepted: Buffer[], presented: Buffer): boolean {
  let found = false;
  for (const a of accepted) found = timingSafeEqual(a, presented) || found;
  return found;
}

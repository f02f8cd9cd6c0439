import { createHash, randomBytes } from 'node:crypto';

/** A new bearer token: 32 random bytes, base64url (43 characters). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored and looked up instead of a token: its SHA-256. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Tokens this service minted have this form; anything else is refused before the database. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

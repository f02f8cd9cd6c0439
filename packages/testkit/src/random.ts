import { randomBytes } from 'node:crypto';

/** `bytes` random bytes as lower-case hex: safe in database names, Redis keys and emails. */
export function randomHex(bytes = 4): string {
  return randomBytes(bytes).toString('hex');
}

import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerUnaryCall } from '@grpc/grpc-js';
import { AppError } from '../errors';
import { INTERNAL_TOKEN_METADATA } from './metadata';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Builds the guard for admin RPCs. Tokens are compared as SHA-256 digests with
 * timingSafeEqual, so neither content nor length leaks through timing.
 * Throws AppError('unauthenticated') when the token is missing or wrong.
 */
export function internalTokenGuard(
  expected: string,
): (call: ServerUnaryCall<unknown, unknown>) => void {
  if (expected.length < 16) throw new Error('internal token must be at least 16 characters');
  const expectedDigest = digest(expected);
  return (call) => {
    const presented = call.metadata.get(INTERNAL_TOKEN_METADATA)[0];
    if (typeof presented !== 'string' || !timingSafeEqual(digest(presented), expectedDigest)) {
      throw new AppError('unauthenticated', 'This admin RPC requires a valid internal token.');
    }
  };
}

import { AppError } from '@brand/shared/errors';
import { keyEnvironment, type KeyEnvironment } from '@brand/shared/keys';
import type { AuthFailureReason } from '../http/authFailureReason';

const SCHEME = 'Bearer ';

/** A refused Authorization header: the client's error, and why, for the metrics. */
export class KeyRefusal extends AppError {
  constructor(
    readonly reason: AuthFailureReason,
    code: 'missing_key' | 'invalid_key',
    message: string,
  ) {
    super(code, message);
  }
}

/**
 * Reads `Authorization: Bearer <key>` exactly as docs/contract.md#authentication requires: the scheme must be
 * spelled `Bearer` (not `bearer`, not `Basic`), else missing_key — there is no header
 * with the Bearer prefix. A token that is not shaped like one of our keys, or belongs to
 * the other environment, is invalid_key without any lookup.
 * Returns the key; throws KeyRefusal (an AppError) otherwise.
 */
export function readBearerKey(header: string | undefined, serving: KeyEnvironment): string {
  if (header === undefined || header === '') {
    throw new KeyRefusal(
      'missing',
      'missing_key',
      'Send your API key in the Authorization header: `Authorization: Bearer <key>`.',
    );
  }
  if (!header.startsWith(SCHEME)) {
    throw new KeyRefusal(
      'wrong_scheme',
      'missing_key',
      'The Authorization header must use the Bearer scheme, spelled exactly `Bearer`: `Authorization: Bearer <key>`.',
    );
  }
  const key = header.slice(SCHEME.length).trim();
  if (key === '')
    throw new KeyRefusal(
      'missing',
      'missing_key',
      'No API key after `Bearer` in the Authorization header.',
    );
  const environment = keyEnvironment(key);
  if (environment === undefined)
    throw new KeyRefusal('malformed', 'invalid_key', 'The API key is not valid.');
  if (environment !== serving) {
    throw new KeyRefusal(
      'wrong_environment',
      'invalid_key',
      `This is a ${environment} key; this deployment serves the ${serving} environment.`,
    );
  }
  return key;
}

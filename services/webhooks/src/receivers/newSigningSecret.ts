import { randomBase62 } from '@brand/shared/ids';

/** A receiver's signing secret: `whsec_` and 32 base62 characters (~190 bits). */
export function generateSigningSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

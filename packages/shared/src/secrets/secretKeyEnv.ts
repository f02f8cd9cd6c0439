import { z } from 'zod';

/** A key of the SecretBox as configured (WEBHOOK_SECRET_KEY): 32 bytes, base64. */
export const secretKeyEnv = z
  .string()
  .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded');

import type { ConnectionOptions } from 'node:tls';
import { z } from 'zod';
import { optionalEnv } from '../config/envTypes';
import { readSecretFile, unreadableFileReason } from '../config/secretFiles';

/** Redis's TLS setting, to spread into the Env schema of a process with REDIS_URL. */
export const redisTlsEnv = {
  /**
   * PEM file of the CA that signed the Redis server's certificate, for a rediss:// REDIS_URL
   * (ElastiCache and Memorystore with in-transit encryption, a company CA); unset: the
   * system's CAs.
   */
  REDIS_TLS_CA_FILE: optionalEnv(z.string().min(1)),
};

export interface RedisTlsSettings {
  REDIS_URL: string;
  REDIS_TLS_CA_FILE?: string | undefined;
}

/**
 * ioredis's `tls` option for a URL: rediss:// is TLS that checks the certificate chain and
 * the host name, against the CA file when one is given; redis:// is plaintext. Reads the
 * file now.
 */
export function redisTlsOptions(url: string, caFile?: string): ConnectionOptions | undefined {
  if (!url.startsWith('rediss://')) return undefined;
  const tls: ConnectionOptions = { rejectUnauthorized: true };
  if (caFile) tls.ca = readSecretFile(caFile);
  return tls;
}

/** A superRefine step: a CA file needs a rediss:// URL to matter, and must be readable. */
export function checkRedisTls(env: RedisTlsSettings, ctx: z.RefinementCtx): void {
  const file = env.REDIS_TLS_CA_FILE;
  if (file === undefined) return;
  if (!env.REDIS_URL.startsWith('rediss://'))
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_TLS_CA_FILE'],
      message: 'is set but REDIS_URL is not rediss:// (TLS)',
    });
  const reason = unreadableFileReason(file);
  if (reason) ctx.addIssue({ code: 'custom', path: ['REDIS_TLS_CA_FILE'], message: reason });
}

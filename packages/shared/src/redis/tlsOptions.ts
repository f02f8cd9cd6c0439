import type { ConnectionOptions } from 'node:tls';
import { z } from 'zod';
import { optionalEnv } from '../config/envTypes';
import { defineLiveFileProperty, unreadableFileReason } from '../config/secretFiles';

/** Redis's TLS setting, to spread into the Env schema of a process with REDIS_URL. */
export const redisTlsEnv = {
  /**
   * PEM file of the CA that signed the Redis server's certificate, for a rediss:// REDIS_URL
   * (ElastiCache and Memorystore with in-transit encryption, a company CA); unset: the
   * system's CAs.
   */
  REDIS_TLS_CA_FILE: optionalEnv(z.string().min(1)),
  /**
   * A file holding the Redis password (AUTH, or the RBAC user's with a user in REDIS_URL), read
   * at each new connection and again once it changed: a rotated password needs no restart.
   * REDIS_URL then carries no password.
   */
  REDIS_PASSWORD_FILE: optionalEnv(z.string().min(1)),
};

export interface RedisTlsSettings {
  REDIS_URL: string;
  REDIS_TLS_CA_FILE?: string | undefined;
  REDIS_PASSWORD_FILE?: string | undefined;
}

/**
 * ioredis's `tls` option for a URL: rediss:// is TLS that checks the certificate chain and
 * the host name, against the CA file when one is given; redis:// is plaintext. The file is
 * read at each connect, again once it changed (a renewed CA bundle needs no restart).
 */
export function redisTlsOptions(url: string, caFile?: string): ConnectionOptions | undefined {
  if (!url.startsWith('rediss://')) return undefined;
  const tls: ConnectionOptions = { rejectUnauthorized: true };
  if (caFile) defineLiveFileProperty(tls, 'ca', caFile);
  return tls;
}

/**
 * A superRefine step: a CA file needs a rediss:// URL to matter; the CA and password files
 * must be readable, and a password file excludes a password in the URL.
 */
export function checkRedisTls(env: RedisTlsSettings, ctx: z.RefinementCtx): void {
  if (env.REDIS_PASSWORD_FILE !== undefined) {
    const reason = unreadableFileReason(env.REDIS_PASSWORD_FILE);
    if (reason) ctx.addIssue({ code: 'custom', path: ['REDIS_PASSWORD_FILE'], message: reason });
    if (URL.canParse(env.REDIS_URL) && new URL(env.REDIS_URL).password !== '')
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_PASSWORD_FILE'],
        message: 'is set but REDIS_URL carries a password too: keep one',
      });
  }
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

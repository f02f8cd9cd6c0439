import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../config';
import { checkRedisTls, redisTlsEnv, redisTlsOptions } from './tlsOptions';

const dir = mkdtempSync(path.join(tmpdir(), 'redis-tls-'));
const ca = path.join(dir, 'ca.pem');
writeFileSync(ca, 'CA PEM\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Env = z.object({ REDIS_URL: z.string(), ...redisTlsEnv }).superRefine(checkRedisTls);

function problems(env: Record<string, string>): string {
  try {
    loadConfig(Env, env);
    return '';
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
}

describe('redisTlsOptions', () => {
  it('redis:// is plaintext', () => {
    expect(redisTlsOptions('redis://cache:6379')).toBeUndefined();
  });

  it('rediss:// verifies against the system CAs, or the CA file given', () => {
    expect(redisTlsOptions('rediss://cache:6380')).toEqual({ rejectUnauthorized: true });
    expect(redisTlsOptions('rediss://cache:6380', ca)).toEqual({
      rejectUnauthorized: true,
      ca: 'CA PEM',
    });
  });
});

describe('checkRedisTls', () => {
  it('accepts a CA file with rediss://', () => {
    expect(problems({ REDIS_URL: 'rediss://cache:6380', REDIS_TLS_CA_FILE: ca })).toBe('');
  });

  it('refuses a CA file with redis:// (it would be ignored)', () => {
    expect(problems({ REDIS_URL: 'redis://cache:6379', REDIS_TLS_CA_FILE: ca })).toContain(
      'REDIS_TLS_CA_FILE: is set but REDIS_URL is not rediss:// (TLS)',
    );
  });

  it('refuses a CA file that cannot be read', () => {
    expect(
      problems({ REDIS_URL: 'rediss://cache:6380', REDIS_TLS_CA_FILE: '/nonexistent/ca.pem' }),
    ).toContain('REDIS_TLS_CA_FILE: cannot read /nonexistent/ca.pem: no such file');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../config';
import { checkDatabaseTls, databaseTlsWarning, pgConnection } from './tlsOptions';

const dir = mkdtempSync(path.join(tmpdir(), 'pg-tls-'));
const ca = path.join(dir, 'ca.pem');
writeFileSync(ca, 'CA PEM\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Env = z
  .object({ DATABASE_URL: z.string().url(), DATABASE_SSL_CA_FILE: z.string().optional() })
  .superRefine(checkDatabaseTls);

function problems(env: Record<string, string>): string {
  try {
    loadConfig(Env, env);
    return '';
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
}

const BASE = 'postgres://app:p%40ss@db.example.com:5432/brand';

describe('pgConnection: libpq meaning of sslmode', () => {
  it('no sslmode: the URL as it is, TLS left to pg (PGSSLMODE)', () => {
    expect(pgConnection({ DATABASE_URL: BASE })).toEqual({ connectionString: BASE });
  });

  it('disable: no TLS', () => {
    expect(pgConnection({ DATABASE_URL: `${BASE}?sslmode=disable` })).toEqual({
      connectionString: BASE,
      ssl: false,
    });
  });

  it('verify-full with DATABASE_SSL_CA_FILE: chain and host name against that CA', () => {
    const c = pgConnection({
      DATABASE_URL: `${BASE}?sslmode=verify-full&application_name=x`,
      DATABASE_SSL_CA_FILE: ca,
    });
    // the TLS parameters leave the URL, so pg's own reading of them cannot replace ours
    expect(c.connectionString).toBe(`${BASE}?application_name=x`);
    expect(c.ssl).toEqual({ ca: 'CA PEM', rejectUnauthorized: true });
  });

  it('verify-full with sslrootcert in the URL (PGSSLROOTCERT meaning)', () => {
    const c = pgConnection({ DATABASE_URL: `${BASE}?sslmode=verify-full&sslrootcert=${ca}` });
    expect(c.connectionString).toBe(BASE);
    expect(c.ssl).toEqual({ ca: 'CA PEM', rejectUnauthorized: true });
  });

  it('verify-full without a CA: the system CAs', () => {
    expect(pgConnection({ DATABASE_URL: `${BASE}?sslmode=verify-full` }).ssl).toEqual({
      rejectUnauthorized: true,
    });
  });

  it('verify-ca: the chain only, any host name', () => {
    const ssl = pgConnection({
      DATABASE_URL: `${BASE}?sslmode=verify-ca`,
      DATABASE_SSL_CA_FILE: ca,
    }).ssl as { rejectUnauthorized: boolean; checkServerIdentity: () => unknown; ca: string };
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(ssl.ca).toBe('CA PEM');
    expect(ssl.checkServerIdentity()).toBeUndefined();
  });

  it('require: encrypted but unverified, or verify-ca once a CA is given (as libpq)', () => {
    expect(pgConnection({ DATABASE_URL: `${BASE}?sslmode=require` }).ssl).toEqual({
      rejectUnauthorized: false,
    });
    const withCa = pgConnection({
      DATABASE_URL: `${BASE}?sslmode=require`,
      DATABASE_SSL_CA_FILE: ca,
    }).ssl as { rejectUnauthorized: boolean; checkServerIdentity?: unknown };
    expect(withCa.rejectUnauthorized).toBe(true);
    expect(typeof withCa.checkServerIdentity).toBe('function');
  });

  it('pg’s ?ssl=true is verify-full against the system CAs', () => {
    expect(pgConnection({ DATABASE_URL: `${BASE}?ssl=true` })).toEqual({
      connectionString: BASE,
      ssl: { rejectUnauthorized: true },
    });
  });
});

describe('checkDatabaseTls refuses what cannot work, naming the variable', () => {
  it.each([
    [
      'verify-full with a CA',
      { DATABASE_URL: `${BASE}?sslmode=verify-full`, DATABASE_SSL_CA_FILE: ca },
    ],
    ['require', { DATABASE_URL: `${BASE}?sslmode=require` }],
    ['no sslmode', { DATABASE_URL: BASE }],
  ])('accepts %s', (_what, env) => {
    expect(problems(env)).toBe('');
  });

  it.each([
    [
      'prefer (a plaintext fallback pg cannot make)',
      { DATABASE_URL: `${BASE}?sslmode=prefer` },
      'DATABASE_URL: sslmode=prefer is not supported',
    ],
    [
      'a CA file without an sslmode that uses it',
      { DATABASE_URL: BASE, DATABASE_SSL_CA_FILE: ca },
      'DATABASE_SSL_CA_FILE: is set but DATABASE_URL has no sslmode=verify-full',
    ],
    [
      'verify-ca without a CA',
      { DATABASE_URL: `${BASE}?sslmode=verify-ca` },
      'DATABASE_SSL_CA_FILE: is required with sslmode=verify-ca',
    ],
    [
      'a CA file that cannot be read',
      { DATABASE_URL: `${BASE}?sslmode=verify-full`, DATABASE_SSL_CA_FILE: '/nonexistent/ca.pem' },
      'DATABASE_SSL_CA_FILE: cannot read /nonexistent/ca.pem: no such file',
    ],
    [
      'both the CA variable and sslrootcert',
      {
        DATABASE_URL: `${BASE}?sslmode=verify-full&sslrootcert=${ca}`,
        DATABASE_SSL_CA_FILE: ca,
      },
      'DATABASE_SSL_CA_FILE: and sslrootcert in DATABASE_URL are both set',
    ],
    [
      'a client certificate without its key',
      { DATABASE_URL: `${BASE}?sslmode=verify-full&sslcert=${ca}` },
      'DATABASE_URL: sslcert and sslkey go together',
    ],
  ])('refuses %s', (_what, env, expected) => {
    expect(problems(env)).toContain(expected);
  });
});

describe('databaseTlsWarning', () => {
  const warn = (url: string, ca?: string, envMode?: string) =>
    databaseTlsWarning({ DATABASE_URL: url, DATABASE_SSL_CA_FILE: ca }, envMode);

  it('says when a database off this machine is reached without a verified server', () => {
    expect(warn('postgres://u@db.internal:5432/x')).toBe(
      'the database at db.internal is reached without TLS: use sslmode=verify-full (DATABASE_SSL_CA_FILE for a private CA)',
    );
    expect(warn('postgres://u@db.internal/x?sslmode=require')).toMatch(
      /over TLS that takes any certificate \(sslmode=require\)/,
    );
    expect(warn('postgres://u@db.internal/x?sslmode=no-verify')).toMatch(/sslmode=no-verify/);
    expect(warn('postgres://u@db.internal/x?sslmode=disable')).toMatch(/without TLS/);
  });

  it('is silent for a verified server, loopback, or PGSSLMODE=verify-full', () => {
    expect(warn('postgres://u@db.internal/x?sslmode=verify-full')).toBeUndefined();
    expect(warn('postgres://u@db.internal/x?sslmode=verify-ca', '/ca.pem')).toBeUndefined();
    expect(warn('postgres://u@db.internal/x?sslmode=require', '/ca.pem')).toBeUndefined();
    expect(warn('postgres://u@127.0.0.1:5432/x')).toBeUndefined();
    expect(warn('postgres://u@localhost/x')).toBeUndefined();
    expect(warn('postgres://u@db.internal/x', undefined, 'verify-full')).toBeUndefined();
  });
});

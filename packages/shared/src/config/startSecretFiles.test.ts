import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, loadConfig } from './loadConfig';
import { START_SECRET_NAMES } from './startSecretFiles';

const dir = mkdtempSync(path.join(tmpdir(), 'start-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Env = z.object({
  INTERNAL_TOKEN: z.string().min(32),
  CURSOR_SECRET: z.string().min(32),
  KAFKA_SASL_PASSWORD: z.string().optional(),
  KAFKA_SASL_PASSWORD_FILE: z.string().optional(),
});

const fileOf = (name: string, text: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

const token = 'i'.repeat(40);
const cursor = 'c'.repeat(40);

describe('a secret read at start, given as <NAME>_FILE', () => {
  it('is read from the file, its one trailing newline dropped', () => {
    const config = loadConfig(Env, {
      INTERNAL_TOKEN_FILE: fileOf('internal-token', `${token}\n`),
      CURSOR_SECRET_FILE: fileOf('cursor-secret', `${cursor}\r\n`),
    });
    expect(config).toEqual({ INTERNAL_TOKEN: token, CURSOR_SECRET: cursor });
  });

  it('mixes with secrets given as variables, and an empty _FILE is no file', () => {
    const config = loadConfig(Env, {
      INTERNAL_TOKEN: token,
      CURSOR_SECRET_FILE: fileOf('cursor-only', cursor),
      INTERNAL_TOKEN_FILE: '',
    });
    expect(config).toEqual({ INTERNAL_TOKEN: token, CURSOR_SECRET: cursor });
  });

  it('is refused when given both ways, naming the setting and not the value', () => {
    const load = () =>
      loadConfig(Env, {
        INTERNAL_TOKEN: token,
        INTERNAL_TOKEN_FILE: fileOf('both', `${'x'.repeat(40)}\n`),
        CURSOR_SECRET: cursor,
      });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(
      'Invalid configuration:\n  INTERNAL_TOKEN_FILE: set INTERNAL_TOKEN or INTERNAL_TOKEN_FILE, not both',
    );
    expect(load).not.toThrow(/xxxx|iiii/);
  });

  it('names a file that is missing or unreadable, beside the schema’s own problems', () => {
    const locked = fileOf('locked', token);
    chmodSync(locked, 0o000);
    const missing = path.join(dir, 'missing');
    let message = '';
    try {
      loadConfig(Env, { INTERNAL_TOKEN_FILE: missing, CURSOR_SECRET: 'short' });
    } catch (err) {
      message = (err as Error).message;
    }
    const lines = message.split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines[1]).toBe(`  INTERNAL_TOKEN_FILE: cannot read ${missing}: no such file`);
    // the schema's problems follow: the token it never got, the secret too short
    expect(lines.slice(2).map((l) => l.split(':')[0])).toEqual([
      '  INTERNAL_TOKEN',
      '  CURSOR_SECRET',
    ]);
    // root reads any file whatever its mode: the permission case holds for other users only
    if (process.getuid?.() !== 0) {
      expect(() => loadConfig(Env, { INTERNAL_TOKEN_FILE: locked, CURSOR_SECRET: cursor })).toThrow(
        `INTERNAL_TOKEN_FILE: cannot read ${locked}: permission denied`,
      );
    }
  });

  it('names a directory given for a file (the Secret’s mount, not its key) as a setting problem', () => {
    // the likeliest slip: INTERNAL_TOKEN_FILE=/etc/brand-records/secrets
    const load = () => loadConfig(Env, { INTERNAL_TOKEN_FILE: dir, CURSOR_SECRET: cursor });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`INTERNAL_TOKEN_FILE: cannot read ${dir}: a directory, not a file`);
  });

  it('leaves the settings that read their own file again when it changes as they are', () => {
    const password = fileOf('sasl-password', 'scram\n');
    const config = loadConfig(Env, {
      INTERNAL_TOKEN: token,
      CURSOR_SECRET: cursor,
      KAFKA_SASL_PASSWORD_FILE: password,
    });
    expect(config).toEqual({
      INTERNAL_TOKEN: token,
      CURSOR_SECRET: cursor,
      KAFKA_SASL_PASSWORD_FILE: password,
    });
  });
});

it('the Helm chart gives as files only settings the processes read so (secrets.asFiles)', () => {
  // the chart names them in its own template language: a name there that the processes do not
  // read as <NAME>_FILE would start every pod without that secret
  const helpers = readFileSync(
    path.join(__dirname, '../../../../deploy/helm/brand-records/templates/_helpers.tpl'),
    'utf8',
  );
  const list = /\$startSecrets := list ((?:"[A-Z_]+" ?)+)/.exec(helpers)?.[1];
  const chartNames = [...(list ?? '').matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]);
  expect(chartNames.length).toBeGreaterThan(5);
  expect(chartNames.filter((n) => !START_SECRET_NAMES.includes(n!))).toEqual([]);
});

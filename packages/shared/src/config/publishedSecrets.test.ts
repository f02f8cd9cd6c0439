import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { PUBLISHED_SECRETS, refusePublishedSecrets } from './callerTokens';

/**
 * Every secret value this repository publishes (a test harness, the chart's CI values, the
 * benchmark, the examples in tests and docs), found by reading the tracked files, must be one
 * production refuses. A review of 2026-11-29 found the CI values, the benchmark's tokens and
 * the published key pair accepted, though the chart's CI file said production refuses them.
 */
const ROOT = join(__dirname, '../../../..');
const SECRET_NAMES =
  /\b(?:INTERNAL_TOKEN|ADMIN_TOKEN|CONSOLE_TOKEN|CURSOR_SECRET|WEBHOOK_SECRET_KEY)S?(?:_PREVIOUS)?\b['"]?\s*[:=]\s*['"]?([A-Za-z0-9+/=_-]{24,})/g;
const PEM = /-----BEGIN (PRIVATE|PUBLIC) KEY-----([\sA-Za-z0-9+/=]+?)-----END \1 KEY-----/g;

function publishedValues(): { tokens: Set<string>; pems: Set<string> } {
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|mjs|cjs|js|ya?ml|json|sh|md|env|example|toml)$/.test(f))
    .filter((f) => !f.startsWith('proto/gen/') && !f.endsWith('package-lock.json'));
  const tokens = new Set<string>();
  const pems = new Set<string>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(SECRET_NAMES)) {
      // a constant's name (TEST_ADMIN_TOKEN) is no value
      if (!/^[A-Z0-9_]+$/.test(m[1]!)) tokens.add(m[1]!);
    }
    for (const m of text.matchAll(PEM)) pems.add(`${m[1]}:${m[2]!.replace(/\s+/g, '')}`);
  }
  return { tokens, pems };
}

const production = (env: Record<string, unknown>, names: string[]): string[] => {
  const issues: string[] = [];
  refusePublishedSecrets(names)({ NODE_ENV: 'production', ...env }, {
    addIssue: (i: { path?: PropertyKey[] }) => issues.push(String(i.path?.[0])),
  } as unknown as z.RefinementCtx);
  return issues;
};

describe('the secrets this repository publishes', () => {
  const { tokens, pems } = publishedValues();

  it('are found where they are: tokens in the harness, the chart CI values and the benchmark, and a key pair', () => {
    expect(tokens).toContain('test-admin-token-0123456789abcdef-0123456');
    expect(tokens).toContain('ci-only-admin-token-0123456789abcdef0123');
    expect(tokens).toContain('bench-admin-token-0123456789abcdef-0123');
    expect([...pems].filter((p) => p.startsWith('PRIVATE:'))).not.toHaveLength(0);
  });

  it.each([...tokens])('%s is refused in production', (value) => {
    expect(PUBLISHED_SECRETS).toContain(value);
    expect(production({ INTERNAL_TOKEN: value }, ['INTERNAL_TOKEN'])).toEqual(['INTERNAL_TOKEN']);
  });

  it.each([...pems])('the published key %s is refused in production, as PEM or as a key', (pem) => {
    const [kind, body] = pem.split(':') as ['PRIVATE' | 'PUBLIC', string];
    const text = `-----BEGIN ${kind} KEY-----\n${body}\n-----END ${kind} KEY-----\n`;
    const key = kind === 'PRIVATE' ? createPrivateKey(text) : createPublicKey(text);
    expect(production({ K: text, KEYS: [key] }, ['K', 'KEYS'])).toEqual(['K', 'KEYS']);
    if (kind === 'PRIVATE') {
      // its public half, which webhooks and plans check assertions with, is refused too
      expect(production({ K: createPublicKey(key) }, ['K'])).toEqual(['K']);
    }
  });

  it('a value of its own is accepted', () => {
    expect(production({ INTERNAL_TOKEN: 'x'.repeat(40) }, ['INTERNAL_TOKEN'])).toEqual([]);
  });
});

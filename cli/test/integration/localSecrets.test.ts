import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@brand/testkit';
import { parseEnvFile } from '../../src/settings';

// No secret is committed; `npm run up` generates the local stack's secrets on its first run into
// .local/secrets.env (git-ignored, readable by its owner only).

/** Runs scripts/lib/common.sh's ensure_local_secrets in a scratch copy of the repository. */
function ensureSecrets(root: string): Record<string, string> {
  mkdirSync(join(root, 'scripts/lib'), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'scripts/lib/common.sh'), join(root, 'scripts/lib/common.sh'));
  execFileSync('bash', ['-c', `. "${root}/scripts/lib/common.sh" && ensure_local_secrets`], {
    stdio: 'pipe',
  });
  return parseEnvFile(readFileSync(join(root, '.local/secrets.env'), 'utf8'));
}

describe('local secrets', () => {
  const roots: string[] = [];
  const scratch = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'brand-secrets-'));
    roots.push(dir);
    return dir;
  };
  afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('are generated once, random, owner-only, and kept on later runs', () => {
    const root = scratch();
    const first = ensureSecrets(root);
    expect(Object.keys(first).sort()).toEqual([
      'ADMIN_TOKEN',
      'CONSOLE_ASSERTION_PRIVATE_KEY',
      'CONSOLE_ASSERTION_PUBLIC_KEY',
      'CONSOLE_TOKEN',
      'CURSOR_SECRET',
      'DEV_IDP_CLIENT_SECRET',
      'DEV_IDP_PASSWORD',
      'INTERNAL_TOKEN',
      'WEBHOOK_SECRET_KEY',
    ]);
    for (const name of [
      'ADMIN_TOKEN',
      'CONSOLE_TOKEN',
      'CURSOR_SECRET',
      'INTERNAL_TOKEN',
      'DEV_IDP_CLIENT_SECRET',
    ]) {
      expect(first[name]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    // the local OpenID provider's demo users' password: typed by a person, so shorter
    expect(first.DEV_IDP_PASSWORD).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(Buffer.from(first.WEBHOOK_SECRET_KEY!, 'base64')).toHaveLength(32);
    // one Ed25519 pair, its PEM newlines written as \n (the services read them back)
    const pem = (name: string): string => first[name]!.replaceAll('\\n', '\n');
    const publicKey = createPublicKey(pem('CONSOLE_ASSERTION_PUBLIC_KEY'));
    expect(publicKey.asymmetricKeyType).toBe('ed25519');
    expect(
      createPublicKey(pem('CONSOLE_ASSERTION_PRIVATE_KEY')).export({ type: 'spki', format: 'der' }),
    ).toEqual(publicKey.export({ type: 'spki', format: 'der' }));
    expect(statSync(join(root, '.local/secrets.env')).mode & 0o777).toBe(0o600);
    expect(ensureSecrets(root)).toEqual(first);
    expect(ensureSecrets(scratch()).ADMIN_TOKEN).not.toBe(first.ADMIN_TOKEN);
  });

  it('are never committed: .local is ignored and config/local.env holds no secret', () => {
    const ignored = execFileSync('git', ['check-ignore', '.local/secrets.env'], { cwd: REPO_ROOT });
    expect(ignored.toString().trim()).toBe('.local/secrets.env');
    const committed = parseEnvFile(readFileSync(join(REPO_ROOT, 'config/local.env'), 'utf8'));
    for (const name of ['ADMIN_TOKEN', 'INTERNAL_TOKEN', 'CURSOR_SECRET', 'WEBHOOK_SECRET_KEY']) {
      expect(committed[name]).toBeUndefined();
    }
  });
});

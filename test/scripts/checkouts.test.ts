// Two checkouts on one machine never break each other. A second checkout's `npm run up` used the
// first one's database (it revoked the first one's demo key, and its own secrets key met the first
// one's receivers). Each checkout now resolves, as up does (ensure_local_checkout, then
// .local/checkout.env before config/local.env), its own database, Redis key prefix, consumer group
// and topic, and keeps its own secrets.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

const NAMES = [
  'DATABASE_URL',
  'REDIS_KEY_PREFIX',
  'KAFKA_CONSUMER_GROUP',
  'BUSINESS_EVENTS_TOPIC',
  'WEBHOOK_SECRET_KEY',
  'REDIS_URL',
  'KAFKA_BROKERS',
] as const;
type Settings = Record<(typeof NAMES)[number], string>;

/** The settings up.sh would run a scratch checkout at `root` with. */
function upSettings(root: string): Settings {
  mkdirSync(join(root, 'scripts/lib'), { recursive: true });
  mkdirSync(join(root, 'config'), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'scripts/lib/common.sh'), join(root, 'scripts/lib/common.sh'));
  copyFileSync(join(REPO_ROOT, 'config/local.env'), join(root, 'config/local.env'));
  const script = `
    set -euo pipefail
    . scripts/lib/common.sh
    ensure_local_secrets
    ensure_local_checkout
    load_env_file .local/checkout.env
    load_env_file config/local.env
    load_env_file .local/secrets.env
    for name in ${NAMES.join(' ')}; do printf '%s=%s\\n' "$name" "\${!name}"; done`;
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const out = execFileSync('bash', ['-c', script], { cwd: root, env, encoding: 'utf8' });
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  ) as Settings;
}

describe('two checkouts on one machine', () => {
  const roots: string[] = [];
  const scratch = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'brand-checkout-'));
    roots.push(dir);
    return dir;
  };
  afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('keep their own database, Redis prefix, consumer group, topic and secrets key', () => {
    const first = upSettings(scratch());
    const second = upSettings(scratch());
    expect(first.DATABASE_URL).toMatch(
      /^postgres:\/\/postgres@127\.0\.0\.1:5432\/brand_records_[0-9a-f]{8}$/,
    );
    expect(first.REDIS_KEY_PREFIX).toMatch(/^brs:[0-9a-f]{8}:$/);
    for (const name of [
      'DATABASE_URL',
      'REDIS_KEY_PREFIX',
      'KAFKA_CONSUMER_GROUP',
      'BUSINESS_EVENTS_TOPIC',
      'WEBHOOK_SECRET_KEY',
    ] as const) {
      expect([name, second[name]]).not.toEqual([name, first[name]]);
    }
    // the machine's servers stay shared: only the data on them is each checkout's own
    expect(second.REDIS_URL).toBe(first.REDIS_URL);
    expect(second.KAFKA_BROKERS).toBe(first.KAFKA_BROKERS);
  });

  it('keeps a checkout on its data across runs', () => {
    const root = scratch();
    const first = upSettings(root);
    expect(upSettings(root)).toEqual(first);
  });
});

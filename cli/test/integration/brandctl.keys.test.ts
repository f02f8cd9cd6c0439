import { hashApiKey } from '@brand/shared/keys';
import { jsonOf, LIVE_SECRET, useBrandctlStack, type KeyOut } from './brandctlHarness';

// brandctl key create | list | revoke end to end, against a real records process: the
// secret is shown once and works, listings never contain it, every refusal carries the
// service's reason with exit 1, and revocation takes effect at once.

const h = useBrandctlStack();
const run = h.run;
const refused = h.refused;

describe('keys', () => {
  const owner = 'owner@keys.test';
  let brandId: string;

  beforeAll(async () => {
    const { brand } = await h.stack.admin.createBrand({
      tier: 'plus',
      verified: true,
      ownerEmail: owner,
    });
    brandId = brand.id;
    await h.stack.admin.addMember({ brandId, email: 'admin@keys.test', role: 'admin' });
  });

  it('prints a working secret once, clearly labelled, and never lists it', async () => {
    const r = await run(
      ...['key', 'create', '--brand', brandId, '--name', 'Warehouse sync'],
      ...['--env', 'live', '--actor', owner, '--campaigns-prepare'],
    );
    expect(r.code).toBe(0);
    const secrets = r.stdout.match(new RegExp(LIVE_SECRET.source, 'g')) ?? [];
    expect(secrets).toHaveLength(1);
    const secret = secrets[0]!;
    expect(r.stdout).toMatch(/Secret \(shown once\):\n\n {4,}bk_live_/);
    expect(r.stdout).toMatch(/will not be shown again/);
    expect(r.stdout).toMatch(/server-side/);
    expect(r.stdout).toMatch(/permissions +records:read, campaigns:prepare/);

    const identity = await h.stack.admin.authenticateKey(hashApiKey(secret), 'live');
    expect(identity).toMatchObject({ brand_id: brandId, permissions: ['campaigns:prepare'] });

    const human = await run('key', 'list', '--brand', brandId);
    const json = await run('key', 'list', '--brand', brandId, '--json');
    for (const listing of [human, json]) {
      expect(listing.code).toBe(0);
      expect(listing.stdout).not.toContain(secret);
      expect(listing.stdout).not.toContain(secret.slice(12));
    }
    const [key] = jsonOf<{ keys: KeyOut[] }>(json).keys;
    expect(secret.startsWith(key!.prefix)).toBe(true);
    expect(key).toMatchObject({ environment: 'live', created_by: owner, revoked_at: null });
    expect(human.stdout).toMatch(
      /^ID +PREFIX +NAME +ENV +PERMISSIONS +CREATED +CREATED BY +LAST USED +REVOKED +EXPIRES$/m,
    );
    expect(human.stdout).toContain(`${key!.id}  ${key!.prefix}  Warehouse sync  live`);
  });

  it('prints the secret as JSON with --json and the warning on stderr', async () => {
    const r = await run(
      ...['key', 'create', '--brand', brandId, '--name', 'Test job'],
      ...['--env', 'test', '--actor', owner, '--json'],
    );
    expect(r.code).toBe(0);
    const out = jsonOf<{ key: KeyOut; secret: string }>(r);
    expect(out.secret).toMatch(/^bk_test_[A-Za-z0-9]{40}$/);
    // what the key can do, in the words the text shows (issue 62: it said [] beside "read records")
    expect(out.key).toMatchObject({ environment: 'test', permissions: ['records:read'] });
    expect(r.stderr).toMatch(/will not be shown again/);
  });

  it.each([
    [
      'the brand is on the free plan',
      { tier: 'free' as const },
      [],
      /free plan; API keys need Plus/,
    ],
    ['the brand is not verified', { verified: false }, [], /not verified/],
    ['the actor is not an owner', {}, ['--actor', 'admin@brand.test'], /Only a brand owner/],
    [
      'campaigns:prepare is asked on a test key',
      {},
      ['--env', 'test', '--campaigns-prepare'],
      /campaigns:prepare can only be granted to live keys/,
    ],
  ])("refuses a key when %s, with the service's reason", async (_why, brandOpts, extra, reason) => {
    const ownerEmail = 'owner@brand.test';
    const { brand } = await h.stack.admin.createBrand({
      tier: 'plus',
      verified: true,
      ...brandOpts,
      ownerEmail,
    });
    await h.stack.admin.addMember({ brandId: brand.id, email: 'admin@brand.test', role: 'admin' });
    const error = await refused(
      ...['key', 'create', '--brand', brand.id, '--name', 'X'],
      ...['--env', 'live', '--actor', ownerEmail, ...extra],
    );
    expect(error.message).toMatch(reason);
    const human = await run(
      'key',
      'create',
      '--brand',
      brand.id,
      '--name',
      'X',
      '--env',
      'live',
      '--actor',
      ownerEmail,
      ...extra,
    );
    expect(human).toMatchObject({ code: 1, stdout: '', stderr: `error: ${error.message}\n` });
    expect(await h.stack.admin.listKeys(brand.id)).toHaveLength(0);
  });

  it('revokes a key at once and shows when', async () => {
    const { key, secret } = await h.stack.admin.createKey({ brandId, actorEmail: owner });
    const r = await run('key', 'revoke', key.id, '--actor', owner, '--json');
    expect(r.code).toBe(0);
    const revoked = jsonOf<{ key: KeyOut }>(r).key;
    expect(revoked.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    await expect(h.stack.admin.authenticateKey(hashApiKey(secret), 'live')).rejects.toMatchObject({
      code: 'invalid_key',
    });
    const again = await run('key', 'revoke', key.id);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`revoked at ${revoked.revoked_at!}`);
    expect((await run('key', 'list', '--brand', brandId)).stdout).toMatch(
      new RegExp(`^${key.id} .* \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z +-$`, 'm'),
    );
    expect(await refused('key', 'revoke', 'key_doesnotexist')).toMatchObject({ code: 'not_found' });
  });

  it('rolls a key: the new secret printed once, the old key expiring after the overlap', async () => {
    const { key, secret } = await h.stack.admin.createKey({
      brandId,
      actorEmail: owner,
      name: 'Nightly export',
    });
    const r = await run('key', 'roll', key.id, '--expires-in', '1h', '--actor', owner);
    expect(r.code).toBe(0);
    const secrets = r.stdout.match(new RegExp(LIVE_SECRET.source, 'g')) ?? [];
    expect(secrets).toHaveLength(1);
    expect(secrets[0]).not.toBe(secret);
    expect(r.stdout).toMatch(/Secret \(shown once\):/);
    expect(r.stdout).toMatch(new RegExp(`Key ${key.id} rolled; it expires at \\d{4}-`));
    // Both work during the overlap.
    for (const s of [secret, secrets[0]!]) {
      await expect(h.stack.admin.authenticateKey(hashApiKey(s), 'live')).resolves.toBeDefined();
    }

    const json = jsonOf<{
      keys: Array<KeyOut & { expires_at: string | null; replaced_by: string | null; name: string }>;
    }>(await run('key', 'list', '--brand', brandId, '--json')).keys;
    const old = json.find((k) => k.id === key.id)!;
    const replacement = json.find((k) => k.id === old.replaced_by)!;
    expect(replacement.name).toBe('Nightly export');
    expect(Date.parse(old.expires_at!)).toBeGreaterThan(Date.now() + 3_500_000);

    // Ending the overlap early; the expiry never moves later; a second roll is refused.
    const ended = await run('key', 'expire', key.id, '--now', '--actor', owner);
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain(`Key ${key.id} expires at`);
    await expect(h.stack.admin.authenticateKey(hashApiKey(secret), 'live')).rejects.toMatchObject({
      code: 'invalid_key',
    });
    const later = new Date(Date.now() + 86_400_000).toISOString();
    expect(await refused('key', 'expire', key.id, '--at', later)).toMatchObject({
      code: 'key_inactive',
    });
    expect(
      await refused('key', 'roll', key.id, '--expires-in', 'now', '--actor', owner),
    ).toMatchObject({ code: 'key_inactive' });
  });

  it('refuses a roll by a non-owner and an expire without --now or --at', async () => {
    const { key } = await h.stack.admin.createKey({ brandId, actorEmail: owner });
    expect(
      await refused('key', 'roll', key.id, '--expires-in', '24h', '--actor', 'admin@keys.test'),
    ).toMatchObject({ code: 'insufficient_permission' });
    const bare = await run('key', 'expire', key.id);
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('give --now or --at');
    const bad = await run('key', 'roll', key.id, '--expires-in', '2w', '--actor', owner);
    expect(bad.code).not.toBe(0);
  });

  it('creates a key with an expiry', async () => {
    const at = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const r = await run(
      ...['key', 'create', '--brand', brandId, '--name', 'Temp', '--env', 'live'],
      ...['--actor', owner, '--expires-at', at, '--json'],
    );
    expect(r.code).toBe(0);
    const created = jsonOf<{ key: { expires_at: string } }>(r).key;
    expect(Date.parse(created.expires_at)).toBe(Date.parse(at));
  });
});

import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hashApiKey } from '@brand/shared/keys';
import {
  brandctl,
  closedAddress,
  jsonOf,
  useBrandctlStack,
  type BrandOut,
  type ErrorOut,
  type SeedOut,
} from './brandctlHarness';

// brandctl end to end: the built CLI in a child process against a real records process on
// a throwaway database. Every run also checks that the admin token never appears.
// Keys have their own file, brandctl.keys.test.ts.

const RESOURCES = ['campaigns', 'submissions', 'payouts', 'deposits', 'conversions', 'links'];

const h = useBrandctlStack();
const run = h.run;
const refused = h.refused;

describe('usage', () => {
  it.each([
    [[]],
    [['brand']],
    [['brand', 'create']],
    [['brand', 'list']],
    [['brand', 'update']],
    [['member']],
    [['member', 'add']],
    [['member', 'remove-passkeys']],
    [['key']],
    [['key', 'create']],
    [['key', 'list']],
    [['key', 'revoke']],
    [['key', 'roll']],
    [['key', 'expire']],
    [['seed']],
  ])('brandctl %j --help exits 0 with a description and an example', async (words) => {
    const r = await run(...words, '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: brandctl/);
    expect(r.stdout).toMatch(/\nExamples?:\n {2}\$ brandctl /);
  });

  it('--token points at an option that exists', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--token <token>[\s\S]*prefer\s+--admin-token-file/);
    expect(r.stdout).not.toContain('--token-file');
  });

  it('exits 2 on an unknown command, a missing option or a bad choice', async () => {
    const unknown = await run('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);
    expect((await run('brand', 'create', '--name', 'X')).code).toBe(2);
    expect(
      (await run('brand', 'create', '--name', 'X', '--tier', 'gold', '--owner', 'a@b.co')).code,
    ).toBe(2);
    expect((await run('seed', '--scale', '0')).code).toBe(2);
  });

  it('exits 3 with a clear message when the records service is unreachable', async () => {
    const addr = await closedAddress();
    const message = `cannot reach the records service at ${addr}; is it running? (npm run up)`;
    const human = await brandctl(['brand', 'list'], { ...h.env, RECORDS_GRPC_ADDR: addr });
    expect(human).toMatchObject({ code: 3, stdout: '', stderr: `error: ${message}\n` });
    const json = await brandctl(['brand', 'list', '--json'], { ...h.env, RECORDS_GRPC_ADDR: addr });
    expect(json.code).toBe(3);
    expect(jsonOf<ErrorOut>(json)).toEqual({ error: { code: 'service_unavailable', message } });
  });

  it('exits 1 with a wrong admin token, without echoing it', async () => {
    const token = 'wrong-token-wrong-token-wrong-token-wrong';
    const r = await brandctl(['brand', 'list'], { ...h.env, ADMIN_TOKEN: token });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: The caller credential is not valid/);
    expect(r.stdout + r.stderr).not.toContain(token);
  });
});

describe('brands and members', () => {
  it('creates, lists and updates a brand', async () => {
    const created = await run(
      ...['brand', 'create', '--name', 'Acme Foods', '--tier', 'plus'],
      ...['--owner', 'ana@acme.test', '--verified', '--json'],
    );
    expect(created.code).toBe(0);
    const { brand, owner } = jsonOf<{ brand: BrandOut; owner: { email: string; role: string } }>(
      created,
    );
    expect(brand).toMatchObject({ name: 'Acme Foods', tier: 'plus', verified: true });
    expect(owner).toMatchObject({ email: 'ana@acme.test', role: 'owner' });

    const human = await run(
      'brand',
      'create',
      '--name',
      'Beta',
      '--tier',
      'free',
      '--owner',
      'b@beta.test',
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^id +br_\w+$/m);
    expect(human.stdout).toMatch(/^tier +free$/m);
    expect(human.stdout).toMatch(/^verified +no$/m);
    expect(human.stdout).toMatch(/^owner +b@beta\.test$/m);

    const list = jsonOf<{ brands: BrandOut[] }>(await run('brand', 'list', '--json'));
    expect(list.brands.map((b) => b.name)).toEqual(expect.arrayContaining(['Acme Foods', 'Beta']));
    expect((await run('brand', 'list')).stdout).toMatch(
      new RegExp(`^${brand.id} +Acme Foods +plus +yes `, 'm'),
    );

    const updated = await run(
      'brand',
      'update',
      brand.id,
      '--tier',
      'pro',
      '--unverified',
      '--json',
    );
    expect(jsonOf<{ brand: BrandOut }>(updated).brand).toMatchObject({
      tier: 'pro',
      verified: false,
    });
    const reverified = await run('brand', 'update', brand.id, '--verified', '--json');
    expect(jsonOf<{ brand: BrandOut }>(reverified).brand).toMatchObject({
      tier: 'pro',
      verified: true,
    });

    expect((await run('brand', 'update', brand.id)).code).toBe(2);
    expect(await refused('brand', 'update', 'br_nope', '--tier', 'pro')).toMatchObject({
      code: 'not_found',
    });
  });

  it("lifts a brand's SSO requirement when its identity provider is down, and says so in its activity", async () => {
    const { brand } = await h.stack.admin.createBrand({ tier: 'plus', verified: true });
    // the brand requires single sign-on (an owner set it in the console)
    await h.stack.db.pool.query(`update records.brands set sign_in_policy = 'sso' where id = $1`, [
      brand.id,
    ]);
    const lifted = await run(
      'brand',
      'update',
      brand.id,
      '--sign-in-policy',
      'any',
      '--actor',
      'support@ops.example',
      '--json',
    );
    expect(jsonOf<{ brand: BrandOut }>(lifted).brand).toMatchObject({ sign_in_policy: 'any' });
    const human = await run('brand', 'update', brand.id, '--sign-in-policy', 'passkey_or_sso');
    expect(human.stdout).toMatch(/^sign-in +passkey_or_sso$/m);
    // once more with the same policy: nothing changes, nothing more is recorded
    await run('brand', 'update', brand.id, '--sign-in-policy', 'passkey_or_sso');
    const { rows } = await h.stack.db.pool.query<{ actor_email: string; summary: string }>(
      `select actor_email, summary from records.activity
       where brand_id = $1 and action = 'brand.sign_in_policy_changed' order by created_at, id`,
      [brand.id],
    );
    expect(rows).toEqual([
      {
        actor_email: 'support@ops.example',
        summary: 'Members may sign in by emailed link again (set by an operator)',
      },
      {
        actor_email: 'operator',
        summary: 'Members must sign in with a passkey (set by an operator)',
      },
    ]);
    // requiring SSO is the owner's, in the console: brandctl has no such choice
    const sso = await run('brand', 'update', brand.id, '--sign-in-policy', 'sso');
    expect(sso.code).toBe(2);
    expect(sso.stderr).toMatch(/Allowed choices are any, passkey_or_sso/);
    // nor does the RPC take it from an operator
    await expect(
      h.stack.admin.updateBrand({ brandId: brand.id, signInPolicy: 'sso' }),
    ).rejects.toThrow(/requiring single sign-on is a brand owner's act/);
  });

  it('adds a member, and refuses a duplicate or a bad email', async () => {
    const { brand } = await h.stack.admin.createBrand({ tier: 'plus', verified: true });
    const added = await run(
      'member',
      'add',
      brand.id,
      '--email',
      'dev@acme.test',
      '--role',
      'admin',
      '--json',
    );
    expect(added.code).toBe(0);
    expect(jsonOf<{ member: unknown }>(added).member).toMatchObject({
      brand_id: brand.id,
      email: 'dev@acme.test',
      role: 'admin',
    });
    const dup = await refused(
      'member',
      'add',
      brand.id,
      '--email',
      'dev@acme.test',
      '--role',
      'member',
    );
    expect(dup.code).toBe('already_exists');
    const bad = await refused('member', 'add', brand.id, '--email', 'nope', '--role', 'member');
    expect(bad.code).toBe('validation_failed');
    expect(bad.message).toMatch(/email/);
  });
});

describe('seed', () => {
  it('creates Demo Brand, seeds it once, and leaves one live demo key however often it runs', async () => {
    const first = await run('seed', '--json');
    expect(first.code).toBe(0);
    const one = jsonOf<SeedOut>(first);
    expect(one.brand).toMatchObject({ name: 'Demo Brand', tier: 'enterprise', verified: true });
    expect(Object.keys(one.seeded ?? {}).sort()).toEqual([...RESOURCES].sort());
    for (const n of Object.values(one.seeded!)) expect(n).toBeGreaterThan(0);
    expect(one.key!.secret).toMatch(/^bk_live_[A-Za-z0-9]{40}$/);
    expect(one.key!.secret.startsWith(one.key!.prefix)).toBe(true);

    const second = await run('seed', '--json');
    expect(second.code).toBe(0);
    const two = jsonOf<SeedOut>(second);
    expect(two.brand.id).toBe(one.brand.id);
    expect(two.seeded).toBeNull();
    expect(two.key!.id).not.toBe(one.key!.id);
    expect(two.key!.secret).toMatch(/^bk_live_[A-Za-z0-9]{40}$/);

    const demo = (await h.stack.admin.listBrands()).filter((b) => b.name === 'Demo Brand');
    expect(demo).toHaveLength(1);
    const campaigns = await h.stack.admin.listPageRecords({
      brand_id: one.brand.id,
      resource: 'campaigns',
      limit: 200,
    });
    expect(campaigns.records).toHaveLength(one.seeded!.campaigns!);
    // Without a key file each run mints a key and revokes the earlier demo key.
    const keys = await h.stack.admin.listKeys(one.brand.id);
    expect(keys.map((k) => [k.id, k.name, k.permissions, k.created_by, !!k.revoked_at])).toEqual([
      [two.key!.id, 'Demo integration', ['campaigns:prepare'], 'owner@demo-brand.test', false],
      [one.key!.id, 'Demo integration', ['campaigns:prepare'], 'owner@demo-brand.test', true],
    ]);
    const identity = await h.stack.admin.authenticateKey(hashApiKey(two.key!.secret), 'live');
    expect(identity.brand_id).toBe(one.brand.id);

    const human = await run('seed', '--no-key');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/nothing seeded/);
    expect(human.stdout).not.toContain('bk_live_');
    expect(jsonOf<SeedOut>(await run('seed', '--no-key', '--json')).key).toBeNull();
  });

  it('with --key-file reuses the demo key while it is live, and replaces it once it is not', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'brandctl-seed-'));
    const keyFile = path.join(dir, 'nested', 'demo-key.env');
    const first = jsonOf<SeedOut>(await run('seed', '--no-key', '--json'));
    const live = async () =>
      (await h.stack.admin.listKeys(first.brand.id)).filter(
        (k) => k.name === 'Demo integration' && !k.revoked_at,
      );

    const a = jsonOf<SeedOut & { key: { reused: boolean } }>(
      await run('seed', '--key-file', keyFile, '--json'),
    ).key;
    expect(a.reused).toBe(false);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toContain(`DEMO_KEY_SECRET=${a.secret}`);

    const b = jsonOf<SeedOut & { key: { reused: boolean } }>(
      await run('seed', '--key-file', keyFile, '--json'),
    ).key;
    expect(b).toMatchObject({ id: a.id, secret: a.secret, reused: true });
    expect((await live()).map((k) => k.id)).toEqual([a.id]);

    // Revoked meanwhile (or a file that does not match the key): a new key, earlier ones revoked.
    await h.stack.admin.revokeKey(a.id);
    const c = jsonOf<SeedOut & { key: { reused: boolean } }>(
      await run('seed', '--key-file', keyFile, '--json'),
    ).key;
    expect(c.reused).toBe(false);
    expect(c.id).not.toBe(a.id);
    writeFileSync(keyFile, `DEMO_KEY_ID=${c.id}\nDEMO_KEY_SECRET=bk_live_${'x'.repeat(40)}\n`);
    const d = jsonOf<SeedOut & { key: { reused: boolean } }>(
      await run('seed', '--key-file', keyFile, '--json'),
    ).key;
    expect(d.reused).toBe(false);
    expect((await live()).map((k) => k.id)).toEqual([d.id]);
    const identity = await h.stack.admin.authenticateKey(hashApiKey(d.secret), 'live');
    expect(identity.key_id).toBe(d.id);
  });

  it('seeds a named brand, and refuses an unknown one', async () => {
    const { brand } = await h.stack.admin.createBrand({ tier: 'pro', ownerEmail: 'o@named.test' });
    const r = await run('seed', '--brand', brand.id, '--actor', 'o@named.test', '--json');
    expect(r.code).toBe(0);
    const out = jsonOf<SeedOut>(r);
    expect(out.brand.id).toBe(brand.id);
    expect(out.seeded?.campaigns).toBeGreaterThan(0);
    expect(out.key?.secret).toMatch(/^bk_live_/);
    expect(await refused('seed', '--brand', 'br_doesnotexist')).toMatchObject({
      code: 'not_found',
    });
  });
});

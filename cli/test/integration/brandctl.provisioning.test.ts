// brandctl provisioning end to end, against a real records process: a SCIM token printed once
// (and never again), a group mapped to a role, just-in-time membership turned on, what show
// answers, and a revoked token refused by records' own check.
import { jsonOf, useBrandctlStack } from './brandctlHarness';

const h = useBrandctlStack();

interface ShowOut {
  settings: { jit_enabled: boolean; jit_groups_claim: string };
  tokens: { id: string; name: string; revoked_at: string }[];
  mappings: { group: string; role: string }[];
}

describe('brandctl provisioning', () => {
  it('makes a token once, maps a group, turns just in time on, and revokes the token', async () => {
    const { brand } = await h.stack.admin.createBrand({ tier: 'plus', verified: true });
    const made = await h.run(
      'provisioning',
      'token',
      'create',
      brand.id,
      '--name',
      'Okta',
      '--json',
    );
    expect(made.code).toBe(0);
    const { token, secret } = jsonOf<{ token: { id: string }; secret: string }>(made);
    expect(secret).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);

    expect(
      (await h.run('provisioning', 'map', brand.id, '--group', 'Admins', '--role', 'admin')).code,
    ).toBe(0);
    const set = await h.run(
      'provisioning',
      'settings',
      brand.id,
      '--jit',
      'on',
      '--groups-claim',
      'roles',
    );
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('on (claim roles)');

    const show = await h.run('provisioning', 'show', brand.id, '--json');
    expect(show.stdout).not.toContain(secret);
    expect(jsonOf<ShowOut>(show)).toMatchObject({
      settings: { jit_enabled: true, jit_groups_claim: 'roles' },
      tokens: [{ id: token.id, name: 'Okta', revoked_at: '' }],
      mappings: [{ group: 'Admins', role: 'admin' }],
    });
    expect((await h.run('provisioning', 'token', 'revoke', token.id)).code).toBe(0);
    const after = jsonOf<ShowOut>(await h.run('provisioning', 'show', brand.id, '--json'));
    expect(after.tokens[0]!.revoked_at).not.toBe('');
  });

  it('refuses bad input with exit 2 or a clear refusal', async () => {
    const { brand } = await h.stack.admin.createBrand({ tier: 'plus', verified: true });
    expect(
      (await h.run('provisioning', 'map', brand.id, '--group', 'X', '--role', 'emperor')).code,
    ).toBe(2);
    const bad = await h.run('provisioning', 'settings', brand.id, '--groups-claim', 'has spaces');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('claim name');
    const unknown = await h.run('provisioning', 'token', 'revoke', 'sct_nope');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No SCIM token');
  });
});

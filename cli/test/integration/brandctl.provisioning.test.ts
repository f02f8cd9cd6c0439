// brandctl provisioning end to end, against a real records process: a SCIM token printed once
// (and never again), a group mapped to a role, just-in-time membership turned on, what show
// answers, and a revoked token refused by records' own check.
import { ProvisioningServiceClient } from '@brand/proto/access/v1/provisioning';
import { connectClient, createCaller } from '@brand/shared/grpc';
import { LOCK_QUEUE_SERVICE_ENV, queueBehindRowLock, TEST_ADMIN_TOKEN } from '@brand/testkit';
import { jsonOf, useBrandctlStack } from './brandctlHarness';

// a brandctl command's start, on a loaded machine, is part of what the queued change waits for
const h = useBrandctlStack({ recordsEnv: LOCK_QUEUE_SERVICE_ENV });

interface ShowOut {
  settings: { jit_enabled: boolean; jit_groups_claim: string; revoke_keys_on_deprovision: boolean };
  tokens: { id: string; name: string; revoked_at: string; expires_at: string }[];
  mappings: { group: string; role: string }[];
}

/** `brandctl provisioning token create <brand> --name Okta --json`. */
const createOktaToken = (brandId: string) =>
  h.run('provisioning', 'token', 'create', brandId, '--name', 'Okta', '--json');

describe('brandctl provisioning', () => {
  it('makes a token once, maps a group, turns just in time on, and revokes the token', async () => {
    const { brand } = await h.stack.admin.createBrand({ tier: 'plus', verified: true });
    const made = await createOktaToken(brand.id);
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

  it('keeps a brand to five live tokens through rotations too', async () => {
    // Each rotation with an overlap leaves the old token working beside its replacement, so
    // rotating over and over must meet the same limit as creating (a hostile review found it
    // did not: every rotation made one more live token, without end).
    const { brand } = await h.stack.admin.createBrand({ tier: 'plus', verified: true });
    const created = await createOktaToken(brand.id);
    let newest = jsonOf<{ token: { id: string } }>(created).token.id;
    for (let live = 2; live <= 5; live++) {
      const r = await h.run(
        'provisioning',
        'token',
        'rotate',
        newest,
        '--old-expires-in',
        '7d',
        '--json',
      );
      expect(r.code).toBe(0);
      newest = jsonOf<{ token: { id: string } }>(r).token.id;
    }
    const sixth = await h.run('provisioning', 'token', 'rotate', newest, '--old-expires-in', '7d');
    expect(sixth.code).not.toBe(0);
    expect(sixth.stderr).toContain('5 live SCIM tokens');
    const liveTokens = async () =>
      jsonOf<ShowOut>(await h.run('provisioning', 'show', brand.id, '--json')).tokens.filter(
        (t) =>
          t.revoked_at === '' && (t.expires_at === '' || Date.parse(t.expires_at) > Date.now()),
      );
    expect(await liveTokens()).toHaveLength(5);

    // At the limit, a rotation that ends the old token at once still works: it adds none.
    const now = await h.run(
      'provisioning',
      'token',
      'rotate',
      newest,
      '--old-expires-in',
      'now',
      '--json',
    );
    expect(now.code).toBe(0);
    const live = await liveTokens();
    expect(live).toHaveLength(5);
    expect(live.map((t) => t.id)).not.toContain(newest);
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

  it("changes only the settings it names, keeping another owner's change made meanwhile", async () => {
    // `settings` reads the three settings, sets the ones named and writes all three: another
    // owner's change committing between the read and the write was turned back unseen
    // ("revoke the keys" off again). The write now names what was read (if_settings), and
    // brandctl reads again and applies its flags once more when records refuses it.
    const { brand } = await h.stack.admin.createBrand({ tier: 'plus', verified: true });
    const client = connectClient(ProvisioningServiceClient, h.stack.records.address);
    try {
      const other = createCaller(client, { deadlineMs: 30_000, token: TEST_ADMIN_TOKEN });
      const [otherOwner, set] = await queueBehindRowLock(
        h.stack.db.pool,
        { sql: 'select 1 from brands where id = $1 for update', params: [brand.id] },
        [
          () =>
            other('setProvisioningSettings', {
              brand_id: brand.id,
              settings: {
                jit_enabled: false,
                jit_groups_claim: 'groups',
                revoke_keys_on_deprovision: true,
              },
            }),
          // Reads before the other change commits (no lock), then its write queues behind it.
          () => h.run('provisioning', 'settings', brand.id, '--jit', 'on', '--json'),
        ] as const,
      );
      expect(otherOwner.settings?.revoke_keys_on_deprovision).toBe(true);
      expect(set.code).toBe(0);
      expect(
        jsonOf<ShowOut>(await h.run('provisioning', 'show', brand.id, '--json')),
      ).toMatchObject({ settings: { jit_enabled: true, revoke_keys_on_deprovision: true } });
    } finally {
      client.close();
    }
  });
});

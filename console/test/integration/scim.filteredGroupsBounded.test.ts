// A hostile review of one brand against the shared console (2026-12-01): a SCIM list of groups
// the console filters or sorts itself (any filter but a lookup records makes, or any sortBy)
// read every group of the brand WITH its members into the console's memory, bounded only by
// 10,000 groups of up to 20,000 members each. One brand's provider (or a stolen token, at 3,000
// requests a minute and as many at once as it likes) could so hold hundreds of MB per request
// in the one console process every brand's owners and providers share. The list is now refused
// 400 tooMany once the groups read carry more than MAX_FILTERED_MEMBERS members in all, before
// reading further; the provider narrows it (a lookup records makes, or an unfiltered page with
// excludedAttributes=members). The directory is written straight into records' tables.
import { readFileSync } from 'node:fs';
import { randomHex } from '@brand/testkit';
import { signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { scimClient, scimTokenOf } from '../scimActors';

let cs: ConsoleStack;
const db = () => cs.stack.db.pool;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

/** The console process's resident memory now and at its peak, in MB (Linux /proc). */
function consoleMemoryMb(): { now: number; peak: number } {
  const status = readFileSync(`/proc/${cs.consoleProcess.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const USERS = 20_000;
const GROUPS = 10;

describe('a filtered list of groups of 20,000 members each', () => {
  let scim: ReturnType<typeof scimClient>;
  let other: ReturnType<typeof scimClient>;

  beforeAll(async () => {
    const domain = `big-${randomHex(4)}.test`;
    const made = await cs.stack.admin.createBrand({ ownerEmail: `owner@${domain}` });
    const owner = await signInHttp(cs, made.owner.email);
    scim = scimClient(cs, await scimTokenOf(owner, made.brand.id, 'Okta'));
    const brandId = made.brand.id;
    const tag = `F${randomHex(4)}`;
    await db().query(
      `insert into records.scim_users (id, brand_id, user_name, display_name, email, emails,
         created_at, updated_at)
       select 'scu_' || $2 || lpad(n::text, 6, '0'), $1, 'user' || n || '@' || $3, 'Person ' || n,
              'user' || n || '@' || $3,
              jsonb_build_array(jsonb_build_object('value', 'user' || n || '@' || $3,
                'type', 'work', 'primary', true)),
              now(), now()
         from generate_series(1, $4::int) n`,
      [brandId, tag, domain, USERS],
    );
    await db().query(
      `insert into records.scim_groups (id, brand_id, display_name)
       select 'scg_' || $2 || lpad(g::text, 4, '0'), $1, 'Team ' || g
         from generate_series(1, $3::int) g`,
      [brandId, tag, GROUPS],
    );
    await db().query(
      `insert into records.scim_group_members (group_id, user_id)
       select 'scg_' || $1 || lpad(g::text, 4, '0'), 'scu_' || $1 || lpad(n::text, 6, '0')
         from generate_series(1, $2::int) g, generate_series(1, $3::int) n`,
      [tag, GROUPS, USERS],
    );
    const otherDomain = `small-${randomHex(4)}.test`;
    const small = await cs.stack.admin.createBrand({ ownerEmail: `owner@${otherDomain}` });
    const otherOwner = await signInHttp(cs, small.owner.email);
    other = scimClient(cs, await scimTokenOf(otherOwner, small.brand.id, 'Entra'));
  }, 180_000);

  /** A list as the provider asks for it, with the console's memory growth and time around it. */
  async function measured(path: string) {
    const before = consoleMemoryMb();
    const started = Date.now();
    const answer = await scim('GET', path);
    const tookMs = Date.now() - started;
    const grewMb = consoleMemoryMb().peak - Math.max(before.peak, before.now);

    console.log(
      `${path}: ${answer.status} in ${tookMs} ms; console peak RSS +${grewMb.toFixed(0)} MB`,
    );
    return { answer, grewMb };
  }

  it('reads a filtered list that names no members without them: 200, little memory', async () => {
    const filter = encodeURIComponent('displayName sw "Team"');
    const { answer, grewMb } = await measured(
      `/Groups?filter=${filter}&excludedAttributes=members`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ totalResults: GROUPS });
    expect(grewMb).toBeLessThan(60);
  }, 120_000);

  it('refuses one that needs the members past what it may hold: 400 tooMany', async () => {
    const filter = encodeURIComponent('displayName sw "Team"');
    const { answer, grewMb } = await measured(`/Groups?filter=${filter}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      scimType: 'tooMany',
      detail: expect.stringMatching(/excludedAttributes=members/) as unknown,
    });
    expect(grewMb).toBeLessThan(120);
  }, 120_000);

  it('still answers what needs no members held: a lookup, an unfiltered page, one group', async () => {
    const byName = await scim(
      'GET',
      `/Groups?filter=${encodeURIComponent('displayName eq "Team 3"')}`,
    );
    expect(byName.status).toBe(200);
    expect(byName.body).toMatchObject({ totalResults: 1 });
    const page = await scim('GET', '/Groups?startIndex=1&count=5&excludedAttributes=members');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ totalResults: GROUPS, itemsPerPage: 5 });
    // a small brand's filtered list is answered as before
    const small = await other('GET', `/Groups?filter=${encodeURIComponent('displayName sw "A"')}`);
    expect(small.status).toBe(200);
    expect(small.body).toMatchObject({ totalResults: 0 });
  }, 60_000);
});

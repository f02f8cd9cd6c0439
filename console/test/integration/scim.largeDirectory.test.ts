// A SCIM list is one page, not the brand's directory: an identity provider's full import walks
// GET /Users?startIndex=1&count=100, then 101, … through an enterprise directory. Records pages
// the list itself (ordered by creation, then id) and counts it, so each request reads one page,
// and one gRPC answer never holds the whole directory (20,000 users of long names are ~29 MB, past
// the console client's 16 MiB receive limit: the list failed outright), nor the members of groups
// the provider excludes them from. A filter records cannot evaluate is still applied in the
// console, over a directory of at most 10,000 (400 tooMany above). The directories are written
// straight into records' tables: seeding through SCIM would take minutes.
import { randomHex } from '@brand/testkit';
import { signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { PATCH_SCHEMA, scimClient, scimTokenOf } from '../scimActors';

let cs: ConsoleStack;
const db = () => cs.stack.db.pool;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

/** A brand with a SCIM token, its domain and a SCIM client. */
async function brandWithToken() {
  const domain = `dir-${randomHex(4)}.test`;
  const made = await cs.stack.admin.createBrand({ ownerEmail: `owner@${domain}` });
  const owner = await signInHttp(cs, made.owner.email);
  const token = await scimTokenOf(owner, made.brand.id, 'Okta');
  return { brandId: made.brand.id, domain, token, scim: scimClient(cs, token) };
}

/**
 * Writes `count` users into the brand's directory: ids `scu_<tag><n, 6 digits>`, userName
 * `User<n>@domain` (mixed case), created one second apart in n's order unless `sameInstant`
 * (then the id alone orders them). `longNames` gives each a 256-character display name of
 * three-byte characters and 256-character given and family names (~1.4 KB a user in gRPC).
 */
async function seedUsers(
  brandId: string,
  domain: string,
  count: number,
  opts: {
    tag: string;
    longNames?: boolean;
    sameInstant?: boolean;
    namePrefix?: (n: number) => string;
  },
): Promise<string[]> {
  const long = opts.longNames === true;
  const names = Array.from(
    { length: count },
    (_, i) => (opts.namePrefix?.(i + 1) ?? 'User') + String(i + 1),
  );
  await db().query(
    `insert into records.scim_users (id, brand_id, user_name, display_name, given_name,
       family_name, email, emails, created_at, updated_at)
     select 'scu_' || $2 || lpad(n::text, 6, '0'), $1, ($5::text[])[n] || '@' || $3,
            case when $4 then repeat('語', 256) else 'Person ' || n end,
            case when $4 then repeat('g', 256) else 'Given' end,
            case when $4 then repeat('f', 256) else 'Family' end,
            lower(($5::text[])[n]) || '@' || $3,
            jsonb_build_array(jsonb_build_object('value', lower(($5::text[])[n]) || '@' || $3,
              'type', 'work', 'primary', true)),
            t, t
       from generate_series(1, $6::int) n,
            lateral (select case when $7 then timestamptz '2026-01-01'
                                 else timestamptz '2026-01-01' + n * interval '1 second' end as t) ts`,
    [brandId, opts.tag, domain, long, names, count, opts.sameInstant === true],
  );
  return Array.from(
    { length: count },
    (_, i) => `scu_${opts.tag}${String(i + 1).padStart(6, '0')}`,
  );
}

async function seedGroup(brandId: string, id: string, name: string, members: readonly string[]) {
  await db().query(
    `insert into records.scim_groups (id, brand_id, display_name) values ($1, $2, $3)`,
    [id, brandId, name],
  );
  await db().query(
    `insert into records.scim_group_members (group_id, user_id) select $1, unnest($2::text[])`,
    [id, members],
  );
}

type ListBody = {
  totalResults: number;
  itemsPerPage: number;
  startIndex: number;
  Resources?: { id: string; userName?: string; displayName?: string; members?: unknown[] }[];
};

describe('an enterprise directory (20,000 users of long names, a group of all of them)', () => {
  let large: Awaited<ReturnType<typeof brandWithToken>>;
  let ids: string[];
  const groupId = `scg_L${randomHex(6)}`;
  const groupId2 = `scg_M${randomHex(6)}`;

  beforeAll(async () => {
    large = await brandWithToken();
    ids = await seedUsers(large.brandId, large.domain, 20_000, {
      tag: `L${randomHex(4)}`,
      longNames: true,
    });
    await seedGroup(large.brandId, groupId, 'Everyone', ids);
    await seedGroup(large.brandId, groupId2, 'Everyone too', ids);
  }, 120_000);

  it('answers GET /Users?startIndex=1&count=100 with the first 100 and the true total', async () => {
    const page = await large.scim('GET', '/Users?startIndex=1&count=100');
    expect(page.status).toBe(200);
    const body = page.body as ListBody;
    expect(body).toMatchObject({ totalResults: 20_000, itemsPerPage: 100, startIndex: 1 });
    expect(body.Resources!.map((r) => r.id)).toEqual(ids.slice(0, 100));
  });

  it('answers the last page of the walk with what is left', async () => {
    const page = await large.scim('GET', '/Users?startIndex=19951&count=100');
    expect(page.status).toBe(200);
    const body = page.body as ListBody;
    expect(body).toMatchObject({ totalResults: 20_000, startIndex: 19_951 });
    expect(body.Resources!.map((r) => r.id)).toEqual(ids.slice(19_950));
  });

  it('finds one user by userName, case-insensitively, among 20,000', async () => {
    const filter = encodeURIComponent(`userName eq "USER12345@${large.domain.toUpperCase()}"`);
    const found = await large.scim('GET', `/Users?filter=${filter}&startIndex=1&count=100`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ totalResults: 1 });
    expect((found.body as ListBody).Resources!.map((r) => r.id)).toEqual([ids[12_344]]);
  });

  it('refuses a filter it would have to apply to more than 10,000 users: 400 tooMany', async () => {
    const filter = encodeURIComponent('userName sw "user1"');
    const refused = await large.scim('GET', `/Users?filter=${filter}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ scimType: 'tooMany' });
    const sorted = await large.scim('GET', '/Users?sortBy=userName&count=10');
    expect(sorted.status).toBe(400);
    expect(sorted.body).toMatchObject({ scimType: 'tooMany' });
  });

  it('reads the group of 20,000 members (256 three-byte characters each) whole', async () => {
    const group = await large.scim('GET', `/Groups/${groupId}`);
    expect(group.status).toBe(200);
    expect((group.body as { members: unknown[] }).members).toHaveLength(20_000);
  }, 60_000);

  it('lists groups without their members when the provider excludes them, as Entra ID does', async () => {
    // Two groups of 20,000 members are ~32 MB with their members: past the client's 16 MiB.
    const page = await large.scim('GET', '/Groups?startIndex=1&count=2&excludedAttributes=members');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ totalResults: 2, itemsPerPage: 2, startIndex: 1 });
    const listed = (page.body as ListBody).Resources!;
    expect(listed.map((r) => r.id)).toEqual([groupId, groupId2]);
    expect(listed.every((r) => r.members === undefined)).toBe(true);
    const named = await large.scim('GET', '/Groups?count=2&attributes=displayName');
    expect((named.body as ListBody).Resources!.map((r) => r.displayName)).toEqual([
      'Everyone',
      'Everyone too',
    ]);
  }, 60_000);

  // scimmy applied a PATCH by coercing the whole group through its schema three times: about 7 s
  // of the console's one thread for 20,000 members. A change of members alone is applied as a
  // set operation (groupMembersRoute.ts); these check it answers as scimmy did.
  it('removes one member of 20,000 and adds it back, as Entra ID and Okta send it', async () => {
    const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });
    const removed = await large.scim(
      'PATCH',
      `/Groups/${groupId}`,
      patch({ op: 'Remove', path: 'members', value: [{ value: ids[5] }] }),
    );
    expect(removed.status).toBe(200);
    expect(removed.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const body = removed.body as { id: string; members: { value: string }[]; meta: object };
    expect(body.id).toBe(groupId);
    expect(body.members).toHaveLength(19_999);
    expect(body.members.some((m) => m.value === ids[5])).toBe(false);
    expect(body.meta).toMatchObject({
      resourceType: 'Group',
      location: expect.stringMatching(new RegExp(`/scim/v2/Groups/${groupId}$`)) as unknown,
    });
    const etag = removed.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"\d+"$/);
    expect(body.meta).toMatchObject({ version: etag });

    // Removing someone who is not a member changes nothing: 204, as scimmy answers it.
    const again = await large.scim(
      'PATCH',
      `/Groups/${groupId}`,
      patch({ op: 'remove', path: `members[value eq "${ids[5]}"]` }),
    );
    expect(again.status).toBe(204);

    // A stale If-Match is refused (412), and the group stays as it was.
    const stale = await fetch(`${cs.url}/scim/v2/Groups/${groupId}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${large.token}`,
        'content-type': 'application/scim+json',
        'if-match': 'W/"1"',
      },
      body: JSON.stringify(patch({ op: 'add', path: 'members', value: [{ value: ids[5] }] })),
    });
    expect(stale.status).toBe(412);
    const back = await large.scim(
      'PATCH',
      `/Groups/${groupId}`,
      patch({ op: 'add', path: 'members', value: [{ value: ids[5] }] }),
    );
    expect(back.status).toBe(200);
    const read = await large.scim('GET', `/Groups/${groupId}`);
    const members = (read.body as { members: { value: string }[] }).members.map((m) => m.value);
    expect(members).toHaveLength(20_000);
    expect(new Set(members)).toEqual(new Set(ids));
  }, 60_000);

  // Renaming a group derived every member's role again in one transaction (a mapping may name
  // the group), past the console's wait for 20,000: now only when a mapping names the old or new
  // name (scim.providers' Okta test renames a mapped group).
  it('renames a group of 20,000 that no mapping names', async () => {
    const renamed = await large.scim('PATCH', `/Groups/${groupId2}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Everyone, renamed' }],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: groupId2, displayName: 'Everyone, renamed' });
  }, 60_000);

  it('refuses a page of groups too large to carry with their members: 400 tooMany, not 429', async () => {
    // grpc-js refuses the ~32 MB answer as RESOURCE_EXHAUSTED, which was answered 429: a
    // provider retries that same request forever. tooMany tells it to ask for less.
    const page = await large.scim('GET', '/Groups?startIndex=1&count=2');
    expect(page.status).toBe(400);
    expect(page.headers.get('retry-after')).toBeNull();
    expect(page.body).toMatchObject({ scimType: 'tooMany', status: '400' });
    expect((page.body as { detail: string }).detail).toMatch(/excludedAttributes=members/);
  }, 60_000);
});

describe('a small directory (23 users: some created at one instant, some names starting with a)', () => {
  let small: Awaited<ReturnType<typeof brandWithToken>>;
  let order: string[];

  beforeAll(async () => {
    small = await brandWithToken();
    const tag = `S${randomHex(4)}`;
    // 15 created one second apart, then 8 at one instant (ordered by id alone), all after them.
    const spaced = await seedUsers(small.brandId, small.domain, 15, {
      tag: `${tag}a`,
      namePrefix: (n) => (n % 3 === 0 ? 'Alice' : 'Bob'),
    });
    await db().query(
      `update records.scim_users set created_at = created_at - interval '1 year' where id = any($1)`,
      [spaced],
    );
    const together = await seedUsers(small.brandId, small.domain, 8, {
      tag: `${tag}b`,
      sameInstant: true,
      namePrefix: (n) => (n % 2 === 0 ? 'Anna' : 'Carl'),
    });
    order = [...spaced, ...together];
    for (let g = 1; g <= 5; g++) {
      await seedGroup(small.brandId, `scg_${tag}${g}`, `Team ${g}`, order.slice(0, g));
    }
  }, 60_000);

  it('visits each user exactly once, in a stable order, paging with startIndex', async () => {
    const seen: string[] = [];
    for (let start = 1; start <= 30; start += 4) {
      const page = await small.scim('GET', `/Users?startIndex=${start}&count=4`);
      expect(page.status).toBe(200);
      const body = page.body as ListBody;
      expect(body).toMatchObject({ totalResults: 23, startIndex: start, itemsPerPage: 4 });
      seen.push(...(body.Resources ?? []).map((r) => r.id));
    }
    expect(seen).toEqual(order);
  });

  it('answers a page starting inside the first count exactly (startIndex 3, count 10)', async () => {
    for (const [start, count] of [
      [3, 10],
      [2, 22],
      [5, 19],
      [12, 12],
    ] as const) {
      const page = await small.scim('GET', `/Users?startIndex=${start}&count=${count}`);
      expect(page.status).toBe(200);
      expect({ start, count, ids: (page.body as ListBody).Resources!.map((r) => r.id) }).toEqual({
        start,
        count,
        ids: order.slice(start - 1, start - 1 + count),
      });
      expect(page.body).toMatchObject({ totalResults: 23 });
    }
  });

  it('answers count=0 with the total and no resources', async () => {
    const page = await small.scim('GET', '/Users?count=0');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ totalResults: 23, itemsPerPage: 0 });
    expect((page.body as ListBody).Resources ?? []).toEqual([]);
  });

  it('still applies a filter records cannot evaluate, and pages what it keeps', async () => {
    // scimmy compares sw case-exactly: "A", as the names are stored.
    const filter = encodeURIComponent('userName sw "A"');
    const all = await small.scim('GET', `/Users?filter=${filter}&count=100`);
    expect(all.status).toBe(200);
    const expected = order.filter((_, i) => (i < 15 ? (i + 1) % 3 === 0 : (i - 15 + 1) % 2 === 0));
    expect((all.body as ListBody).Resources!.map((r) => r.id)).toEqual(expected);
    expect(all.body).toMatchObject({ totalResults: expected.length });
    const second = await small.scim('GET', `/Users?filter=${filter}&startIndex=3&count=2`);
    expect((second.body as ListBody).Resources!.map((r) => r.id)).toEqual(expected.slice(2, 4));
  });

  it('finds a user by userName case-insensitively, and sorts when asked', async () => {
    const filter = encodeURIComponent(`userName eq "bob1@${small.domain.toUpperCase()}"`);
    const found = await small.scim('GET', `/Users?filter=${filter}`);
    expect(found.body).toMatchObject({ totalResults: 1 });
    expect((found.body as ListBody).Resources![0]!.id).toBe(order[0]);
    const sorted = await small.scim('GET', '/Users?sortBy=userName&sortOrder=descending&count=3');
    expect(sorted.status).toBe(200);
    expect(sorted.body).toMatchObject({ totalResults: 23 });
    const names = (sorted.body as ListBody).Resources!.map((r) => r.userName);
    expect(names[0]!.startsWith('Carl')).toBe(true);
  });

  it('pages groups with the true total', async () => {
    const seen: string[] = [];
    for (const start of [1, 3, 5]) {
      const page = await small.scim('GET', `/Groups?startIndex=${start}&count=2`);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ totalResults: 5, startIndex: start });
      seen.push(...(page.body as ListBody).Resources!.map((r) => r.displayName!));
    }
    expect(seen).toEqual(['Team 1', 'Team 2', 'Team 3', 'Team 4', 'Team 5']);
    const one = await small.scim('GET', `/Groups?count=0`);
    expect(one.body).toMatchObject({ totalResults: 5 });
  });
});

// PATCH is read, apply, write back the whole resource (scimmy): two PATCHes of the same resource
// sent in parallel (Entra ID does) both read it before either writes, and the second write put
// back what the first had changed (a security review): "active false" racing "familyName" left
// the ex-employee active and restored their membership; "remove X from Owners" racing "add Y"
// kept X an owner. Each write now names the version its PATCH read, and records refuses a stale
// one: the loser is answered 412 and the provider sends its PATCH again against the current state.
// The race is made deterministic with a real lock: the test holds the brand's member lock (the
// row every directory write locks first) from its own connection until both PATCHes have read
// and wait on it, the deprovisioning first in the queue. Real records, the console process.
import { randomHex, type TestIdp } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { GROUP_SCHEMA, PATCH_SCHEMA, scimClient, scimTokenOf, USER_SCHEMA } from '../scimActors';
import { brandWithSso, idpClient, startTestIdp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let clients: ReturnType<typeof idpClient>[];
let next = 0;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
  clients = Array.from({ length: 3 }, (_, i) => idpClient(cs, `race${i}`));
  idp = await startTestIdp({ clients });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

const db = () => cs.stack.db.pool;
const within = { timeoutMs: 20_000 };

const user = (email: string) => ({
  schemas: [USER_SCHEMA],
  userName: email,
  emails: [{ primary: true, type: 'work', value: email }],
});
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });

async function brandWithProvider() {
  const b = await brandWithSso(cs, idp, clients[next++]!, `race-${randomHex(4)}.test`);
  const token = await scimTokenOf(b.ownerHttp, b.brand.id, 'Entra');
  const scim = scimClient(cs, token);
  /** A request with an If-Match (scimClient sends no headers of the caller's). */
  const ifMatch = async (method: string, path: string, tag: string, body?: unknown) => {
    const res = await fetch(`${cs.url}/scim/v2${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'if-match': tag,
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(within.timeoutMs),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
      headers: res.headers,
    };
  };
  const newUser = async (local: string) => {
    const made = await scim('POST', '/Users', user(`${local}@${b.domain}`));
    expect(made.status).toBe(201);
    return made.body.id as string;
  };
  return { ...b, scim, ifMatch, newUser };
}

/**
 * The statement a directory write waits on for the brand's member lock (records' memberRepo.ts,
 * lockBrandMembers). Other sessions queue on the brand's row too and must not be taken for a
 * PATCH: the SCIM request log of the request before, whose insert checks its foreign key to the
 * brand, was seen there first in 6 of 24 races, and the race was then not the one intended.
 */
const MEMBER_LOCK = 'select 1 from brands where id = $1 for update';

/** The backends of this test's database waiting for the member lock, first come first. */
async function memberLockWaiters(): Promise<number[]> {
  const r = await db().query<{ pid: number }>(
    `select pid from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query = $1
      order by query_start`,
    [MEMBER_LOCK],
  );
  return r.rows.map((row) => row.pid);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const got = await probe();
    if (got !== undefined) return got;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Holds the brand's member lock while `first` and then `second` are sent: each has read its
 * resource when it waits on the lock. Released once both wait, first in the queue first.
 */
async function race<A, B>(
  brandId: string,
  first: () => Promise<A>,
  second: () => Promise<B>,
): Promise<[A, B]> {
  const locker = await db().connect();
  try {
    await locker.query('begin');
    await locker.query('select 1 from records.brands where id = $1 for update', [brandId]);
    // Only a PATCH waits for this statement while the test holds the lock (the file's tests
    // run one at a time, each on its own brand).
    const a = first();
    await until('the first PATCH to wait', async () =>
      (await memberLockWaiters()).length === 1 ? true : undefined,
    );
    const b = second();
    await until('the second PATCH to wait', async () =>
      (await memberLockWaiters()).length === 2 ? true : undefined,
    );
    await locker.query('commit');
    return [await a, await b];
  } catch (err) {
    await locker.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    locker.release();
  }
}

describe('two PATCHes of the same user at once', () => {
  it('never undo a deprovisioning: the one that read a stale user is answered 412', async () => {
    const b = await brandWithProvider();
    const id = await b.newUser('ann');
    const email = `ann@${b.domain}`;
    const member = () =>
      db().query<{ removed_at: Date | null }>(
        `select removed_at from records.brand_members where brand_id = $1 and email = $2`,
        [b.brand.id, email],
      );
    expect((await member()).rows).toEqual([{ removed_at: null }]);

    const [off, renamed] = await race(
      b.brand.id,
      () =>
        b.scim(
          'PATCH',
          `/Users/${id}`,
          patch({ op: 'replace', path: 'active', value: 'False' }),
          within,
        ),
      () =>
        b.scim(
          'PATCH',
          `/Users/${id}`,
          patch({ op: 'replace', path: 'name.familyName', value: 'Smith' }),
          within,
        ),
    );
    // The user stays deprovisioned (was: active again, and the membership restored).
    const read = await b.scim('GET', `/Users/${id}`, undefined, within);
    const [row] = (await member()).rows;
    expect({
      active: read.body.active,
      removed: row?.removed_at !== null && row !== undefined,
    }).toEqual({
      active: false,
      removed: true,
    });
    expect(off.status).toBe(200);
    expect({ status: renamed.status, schema: (renamed.body.schemas as string[])?.[0] }).toEqual({
      status: 412,
      schema: 'urn:ietf:params:scim:api:messages:2.0:Error',
    });

    // The provider sends the losing PATCH again: it applies to the current (deprovisioned) user.
    const again = await b.scim(
      'PATCH',
      `/Users/${id}`,
      patch({ op: 'replace', path: 'name.familyName', value: 'Smith' }),
      within,
    );
    expect(again.status).toBe(200);
    expect(again.body.active).toBe(false);
    expect((again.body.name as { familyName?: string }).familyName).toBe('Smith');
    expect((await member()).rows[0]?.removed_at).not.toBeNull();
  });
});

describe('two PATCHes of the same group at once', () => {
  it('never undo a removal from a group: the one that read a stale member list is answered 412', async () => {
    const b = await brandWithProvider();
    const x = await b.newUser('xavier');
    const y = await b.newUser('yvonne');
    const made = await b.scim('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Owners',
      members: [{ value: x }],
    });
    expect(made.status).toBe(201);
    const groupId = made.body.id as string;

    const [removed, added] = await race(
      b.brand.id,
      () =>
        b.scim(
          'PATCH',
          `/Groups/${groupId}`,
          patch({ op: 'remove', path: `members[value eq "${x}"]` }),
          within,
        ),
      () =>
        b.scim(
          'PATCH',
          `/Groups/${groupId}`,
          patch({ op: 'add', path: 'members', value: [{ value: y }] }),
          within,
        ),
    );
    const members = async () =>
      (
        ((await b.scim('GET', `/Groups/${groupId}`, undefined, within)).body.members ?? []) as {
          value: string;
        }[]
      ).map((m) => m.value);
    // X stays out (was: back in, with Y, from the list the add had read).
    expect(await members()).toEqual([]);
    expect(removed.status).toBe(200);
    expect(added.status).toBe(412);

    // The provider's retry adds Y to the current list; X stays out.
    const again = await b.scim(
      'PATCH',
      `/Groups/${groupId}`,
      patch({ op: 'add', path: 'members', value: [{ value: y }] }),
      within,
    );
    expect(again.status).toBe(200);
    expect(await members()).toEqual([y]);
  });
});

describe('meta.version and If-Match', () => {
  it('shows each version and refuses a PUT, PATCH or DELETE whose If-Match is stale with 412', async () => {
    const b = await brandWithProvider();
    const id = await b.newUser('iris');
    const email = `iris@${b.domain}`;
    const read = await b.scim('GET', `/Users/${id}`, undefined, within);
    const v1 = (read.body.meta as { version?: string }).version;
    expect(v1).toMatch(/^W\/"\d+"$/);
    expect(read.headers.get('etag')).toBe(v1);
    const config = await b.scim('GET', '/ServiceProviderConfig', undefined, within);
    expect(config.body.etag).toEqual({ supported: true });

    const put = (version: string | undefined) => {
      const body = { ...user(email), displayName: `Iris ${randomHex(2)}` };
      return version
        ? b.ifMatch('PUT', `/Users/${id}`, version, body)
        : b.scim('PUT', `/Users/${id}`, body, within);
    };
    const renamed = await put(v1);
    expect(renamed.status).toBe(200);
    const v2 = (renamed.body.meta as { version?: string }).version;
    expect(v2).not.toBe(v1);
    expect(renamed.headers.get('etag')).toBe(v2);

    // The old version, now stale, and a tag this endpoint never gave: 412, nothing changes.
    const stale = [
      ['PUT', await put(v1)],
      ['PUT', await put('"not-ours"')],
      [
        'PATCH',
        await b.ifMatch(
          'PATCH',
          `/Users/${id}`,
          v1!,
          patch({ op: 'replace', path: 'active', value: false }),
        ),
      ],
      ['DELETE', await b.ifMatch('DELETE', `/Users/${id}`, v1!)],
    ] as const;
    expect(stale.map(([m, a]) => [m, a.status])).toEqual([
      ['PUT', 412],
      ['PUT', 412],
      ['PATCH', 412],
      ['DELETE', 412],
    ]);
    const now = await b.scim('GET', `/Users/${id}`, undefined, within);
    expect({
      version: (now.body.meta as { version?: string }).version,
      active: now.body.active,
    }).toEqual({
      version: v2,
      active: true,
    });

    // A PUT without If-Match replaces whatever is there (last writer wins); `*` matches any.
    expect((await put(undefined)).status).toBe(200);
    expect((await b.ifMatch('DELETE', `/Users/${id}`, '*')).status).toBe(204);
  });
});

// What a provider does with an answer (found by a security review): a 4xx is its request's fault
// and is not sent again; a 404 to a DELETE tells Okta or Entra ID the user is already gone, and it
// stops; a 503 with Retry-After is sent again later. So bad input is a 4xx SCIM error (scimmy
// answered 500 where it choked on input it does not check), and a failure of records is a 503
// (scimmy answered any error it did not know as 404 "Resource not found"). Real records, a real
// OpenID provider, the console process.
import { randomHex, type TestIdp } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { PATCH_SCHEMA, scimClient, scimTokenOf, USER_SCHEMA, type ScimAnswer } from '../scimActors';
import { brandWithSso, idpClient, startTestIdp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let clients: ReturnType<typeof idpClient>[];
let next = 0;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
  clients = Array.from({ length: 4 }, (_, i) => idpClient(cs, `acton${i}`));
  idp = await startTestIdp({ clients });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

const db = () => cs.stack.db.pool;
const within = { timeoutMs: 8_000 };

const user = (email: string) => ({
  schemas: [USER_SCHEMA],
  userName: email,
  emails: [{ primary: true, type: 'work', value: email }],
});

async function brandWithUser() {
  const b = await brandWithSso(cs, idp, clients[next++]!, `acton-${randomHex(4)}.test`);
  const scim = scimClient(cs, await scimTokenOf(b.ownerHttp, b.brand.id, 'Okta'));
  const email = `ann@${b.domain}`;
  const created = await scim('POST', '/Users', user(email));
  expect(created.status).toBe(201);
  return { ...b, scim, email, userId: created.body.id as string };
}

const answer = (asked: string, a: ScimAnswer) => ({
  asked,
  status: a.status,
  schema: (a.body.schemas as string[] | undefined)?.[0],
  scimType: a.body.scimType,
});
const scimError = (asked: string, status: number, scimType?: string) => ({
  asked,
  status,
  schema: 'urn:ietf:params:scim:api:messages:2.0:Error',
  scimType,
});

describe('input scimmy does not check', () => {
  it('is answered 400 with a SCIM error, never a 500', async () => {
    const b = await brandWithUser();
    const patch = (op: unknown) => ({ schemas: [PATCH_SCHEMA], Operations: [op] });
    const asks: [string, string, string, unknown, string][] = [
      // Object.entries(null) in scimmy's PatchOp
      [
        'add null',
        'PATCH',
        `/Users/${b.userId}`,
        patch({ op: 'add', value: null }),
        'invalidValue',
      ],
      [
        'replace null',
        'PATCH',
        `/Users/${b.userId}`,
        patch({ op: 'replace', value: null }),
        'invalidValue',
      ],
      // a path-less replace of a value that matches nothing: scimmy splits the absent path
      [
        'replace, no target',
        'PATCH',
        `/Users/${b.userId}`,
        patch({ op: 'replace', value: { 'emails[type eq "home"].value': 'x' } }),
        'invalidValue',
      ],
      // an attribute list scimmy's filter parser cannot read
      [
        'attributes',
        'GET',
        `/Users?attributes=${encodeURIComponent('(userName pr or displayName pr)')}`,
        undefined,
        'invalidValue',
      ],
    ];
    for (const [asked, method, path, body, scimType] of asks) {
      const a = await b.scim(method, path, body, within);
      expect(answer(asked, a)).toEqual(scimError(asked, 400, scimType));
    }
    // The user is as it was, and the console answers.
    const read = await b.scim('GET', `/Users/${b.userId}`, undefined, within);
    expect(read.status).toBe(200);
    expect(read.body.userName).toBe(b.email);
  });
});

describe('a failure of records', () => {
  it('is a 503 with Retry-After, so the provider retries, never a 404 that says the user is gone', async () => {
    const b = await brandWithUser();
    // A deadlock in records while it writes or deletes this user (records answers INTERNAL).
    await db().query(`
      create function records.test_scim_deadlock() returns trigger language plpgsql as $$
      begin
        raise exception 'deadlock detected (a test)' using errcode = 'deadlock_detected';
      end $$`);
    await db().query(
      `create trigger test_scim_deadlock before update or delete on records.scim_users
         for each row when (old.id = '${b.userId}') execute function records.test_scim_deadlock()`,
    );
    try {
      for (const [method, body] of [
        ['DELETE', undefined],
        ['PUT', { ...user(b.email), displayName: 'Ann' }],
        [
          'PATCH',
          {
            schemas: [PATCH_SCHEMA],
            Operations: [{ op: 'replace', path: 'active', value: false }],
          },
        ],
      ] as const) {
        const a = await b.scim(method, `/Users/${b.userId}`, body, within);
        expect(answer(method, a)).toEqual(scimError(method, 503));
        expect({ method, retryAfter: Number(a.headers.get('retry-after')) > 0 }).toEqual({
          method,
          retryAfter: true,
        });
      }
      const { rows } = await db().query(`select 1 from records.scim_users where id = $1`, [
        b.userId,
      ]);
      expect(rows).toHaveLength(1);
    } finally {
      await db().query(`drop trigger test_scim_deadlock on records.scim_users`);
      await db().query(`drop function records.test_scim_deadlock()`);
    }
    // The provider's retry goes through.
    expect((await b.scim('DELETE', `/Users/${b.userId}`, undefined, within)).status).toBe(204);
    expect((await b.scim('GET', `/Users/${b.userId}`, undefined, within)).status).toBe(404);
  });
});

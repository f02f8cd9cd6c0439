// What scimmy parses beyond the query, the search body and PATCH paths: a resource's id in the
// URL, the keys of a path-less PATCH value, the value objects of a remove, and a filter short
// enough but multiplied out into too many alternatives (found by a security review). Each took
// the console's one thread for hours, for every brand; each is refused at once with a SCIM error,
// and what providers send still works. Real records, a real OpenID provider, the console process
// (a console left busy by a failing run is killed when the stack closes).
import { randomHex, type TestIdp } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import {
  GROUP_SCHEMA,
  PATCH_SCHEMA,
  SEARCH_SCHEMA,
  scimClient,
  scimTokenOf,
  USER_SCHEMA,
  type ScimAnswer,
} from '../scimActors';
import { brandWithSso, idpClient, startTestIdp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let clients: ReturnType<typeof idpClient>[];
let next = 0;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
  clients = Array.from({ length: 6 }, (_, i) => idpClient(cs, `stall${i}`));
  idp = await startTestIdp({ clients });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

/** Each request must be answered within this; the console's whole thread was taken for hours. */
const within = { timeoutMs: 8_000 };
/** A test fails (the request times out) rather than waiting on a stalled console. */
const TEST_MS = 45_000;
/** Enough backslashes in a string left open for scimmy's lexer to backtrack for hours. */
const STALL = '\\'.repeat(60);
/** 30 groups of two alternatives: 2^30 alternatives multiplied out, in 565 characters. */
const EXPANDING = Array(30).fill('(userName pr or displayName pr)').join(' and ');

async function provisionedBrand() {
  const b = await brandWithSso(cs, idp, clients[next++]!, `stall-${randomHex(4)}.test`);
  const scim = scimClient(cs, await scimTokenOf(b.ownerHttp, b.brand.id, 'Entra ID'));
  const user = await scim('POST', '/Users', {
    schemas: [USER_SCHEMA],
    userName: `ann@${b.domain}`,
    emails: [{ primary: true, type: 'work', value: `ann@${b.domain}` }],
  });
  expect(user.status).toBe(201);
  const group = await scim('POST', '/Groups', {
    schemas: [GROUP_SCHEMA],
    displayName: 'Staff',
    members: [{ value: user.body.id }],
  });
  expect(group.status).toBe(201);
  return { ...b, scim, userId: user.body.id as string, groupId: group.body.id as string };
}

/** The answer's status and SCIM error type, with what was asked (to name it when it fails). */
const refusal = (asked: string, a: ScimAnswer) => ({
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

const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });

describe('an id in the URL', () => {
  // scimmy reads a resource by the filter `id eq "<id>"`, the id pasted in as it came.
  it(
    'is refused with 404 when it is not an id records issues, in every method',
    async () => {
      const b = await provisionedBrand();
      const hostile = encodeURIComponent(`x" and members[value eq "${STALL}] eq "y`);
      const asks: [string, string, unknown?][] = [
        ['GET', `/Groups/${hostile}`],
        ['GET', `/Users/${hostile}`],
        ['PUT', `/Users/${hostile}`, { schemas: [USER_SCHEMA], userName: 'x@y.test' }],
        ['PATCH', `/Groups/${hostile}`, patch({ op: 'add', path: 'displayName', value: 'x' })],
        ['DELETE', `/Users/${hostile}`],
        // express matches routes regardless of case and of a trailing slash
        ['GET', `/groups/${hostile}/`],
        ['GET', `/Schemas/${hostile}`],
        ['GET', `/ResourceTypes/${hostile}`],
        // a user's id at Groups, a group's at Users: no such resource either
        ['GET', `/Groups/${b.userId}`],
        ['GET', `/Users/${b.groupId}`],
      ];
      for (const [method, path, body] of asks) {
        const a = await b.scim(method, path, body, within);
        expect(refusal(`${method} ${path}`, a)).toEqual(scimError(`${method} ${path}`, 404));
      }
      // Ids as records issues them, and the discovery resources, are read as before.
      expect((await b.scim('GET', `/Users/${b.userId}`, undefined, within)).status).toBe(200);
      expect((await b.scim('GET', `/groups/${b.groupId}/`, undefined, within)).status).toBe(200);
      expect((await b.scim('GET', '/Users/scu_doesNotExist0', undefined, within)).status).toBe(404);
      const schema = await b.scim('GET', `/Schemas/${USER_SCHEMA}`, undefined, within);
      expect(schema.status).toBe(200);
      expect((await b.scim('GET', '/ResourceTypes/User', undefined, within)).status).toBe(200);
    },
    TEST_MS,
  );
});

describe('a PATCH value', () => {
  // A path-less add or replace uses each key of its value as a path, filter and all.
  it(
    'is refused with 400 invalidPath when a key of a path-less value would stall the parser',
    async () => {
      const b = await provisionedBrand();
      for (const op of ['add', 'replace']) {
        const a = await b.scim(
          'PATCH',
          `/Groups/${b.groupId}`,
          patch({ op, value: { [`members[value eq "${STALL}]`]: 'x' } }),
          within,
        );
        expect(refusal(op, a)).toEqual(scimError(op, 400, 'invalidPath'));
      }
      const expanding = await b.scim(
        'PATCH',
        `/Users/${b.userId}`,
        patch({ op: 'add', value: { [`emails[${EXPANDING}].display`]: 'x' } }),
        within,
      );
      expect(refusal('expanding', expanding)).toEqual(scimError('expanding', 400, 'invalidPath'));
      // Entra ID's path-less replace still applies.
      const entra = await b.scim(
        'PATCH',
        `/Users/${b.userId}`,
        patch({ op: 'Replace', value: { displayName: 'Ann', active: 'True' } }),
        within,
      );
      expect(entra.status).toBe(200);
      expect(entra.body.displayName).toBe('Ann');
    },
    TEST_MS,
  );

  // A remove with value objects turns them into `<key> eq "<value>"` joined by and/or.
  it(
    'is refused with 400 when the objects of a remove would stall the parser',
    async () => {
      const b = await provisionedBrand();
      const byKey = await b.scim(
        'PATCH',
        `/Groups/${b.groupId}`,
        patch({ op: 'remove', path: 'members', value: [{ [`value[value eq "${STALL}]`]: 'x' }] }),
        within,
      );
      expect(refusal('key', byKey)).toEqual(scimError('key', 400, 'invalidPath'));
      const byValue = await b.scim(
        'PATCH',
        `/Groups/${b.groupId}`,
        patch({
          op: 'remove',
          path: 'members',
          value: [{ value: `x" or ${EXPANDING} or value eq "y` }],
        }),
        within,
      );
      expect(refusal('value', byValue)).toEqual(scimError('value', 400, 'invalidValue'));
      // Entra ID's removal of members by value objects still applies.
      const removed = await b.scim(
        'PATCH',
        `/Groups/${b.groupId}`,
        patch({ op: 'Remove', path: 'members', value: [{ value: b.userId }] }),
        within,
      );
      expect(removed.status).toBeLessThan(300);
      const group = await b.scim('GET', `/Groups/${b.groupId}`, undefined, within);
      expect(group.body.members ?? []).toEqual([]);
    },
    TEST_MS,
  );
});

describe('a filter that multiplies out', () => {
  // Under 2,048 characters, `(a or b) and (a or b) and …` is 2^30 alternatives to scimmy.
  it(
    'is refused with 400 wherever scimmy parses one, and what providers send still works',
    async () => {
      const b = await provisionedBrand();
      const q = encodeURIComponent(EXPANDING);
      const attributes = encodeURIComponent(
        Array(30).fill('emails[type eq "work" or type eq "home"]').join(','),
      );
      for (const path of [
        `/Users?filter=${q}`,
        `/Groups?filter=${q}`,
        `/Users?attributes=${attributes}`,
        `/Users?excludedAttributes=${attributes}`,
      ]) {
        const a = await b.scim('GET', path, undefined, within);
        expect(refusal(path, a)).toEqual(scimError(path, 400, 'invalidFilter'));
      }
      // .search (any case: express's routes are case-insensitive), with a stalling string too
      for (const [path, filter] of [
        ['/Users/.search', EXPANDING],
        ['/.search', EXPANDING],
        ['/Users/.SEARCH', `userName eq "${STALL}`],
      ] as const) {
        const a = await b.scim('POST', path, { schemas: [SEARCH_SCHEMA], filter }, within);
        expect(refusal(path, a)).toEqual(scimError(path, 400, 'invalidFilter'));
      }
      const inPath = await b.scim(
        'PATCH',
        `/Groups/${b.groupId}`,
        patch({ op: 'remove', path: `members[${EXPANDING}]` }),
        within,
      );
      expect(refusal('path', inPath)).toEqual(scimError('path', 400, 'invalidPath'));

      // Filters as providers and scimmy's own documentation write them are answered.
      for (const filter of [
        `userName eq "ann@${b.domain}"`,
        `userName eq "ann@${b.domain}" or userName eq "bob@${b.domain}"`,
        '(userType eq "Employee" or userType eq "Manager") and emails[type eq "work" or (primary eq true and value co "@example.com")].display co "Work"',
      ]) {
        const a = await b.scim(
          'GET',
          `/Users?filter=${encodeURIComponent(filter)}`,
          undefined,
          within,
        );
        expect({ filter, status: a.status }).toEqual({ filter, status: 200 });
      }
      const found = await b.scim(
        'GET',
        `/Groups?filter=${encodeURIComponent('displayName eq "Staff"')}&excludedAttributes=members`,
        undefined,
        within,
      );
      expect(found.body.totalResults).toBe(1);
    },
    TEST_MS,
  );
});

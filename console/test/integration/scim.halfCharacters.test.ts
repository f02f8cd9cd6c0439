// A lone UTF-16 surrogate ("\ud800", half of an emoji) in a SCIM body is refused at the SCIM
// edge, 400 with SCIM's error, naming the attribute. Records refuses one in every name
// (@brand/shared/text), but never sees it from the console: the generated gRPC client encodes
// strings as UTF-8 and sends a lone surrogate as U+FFFD, so a provider's "\ud800" in a userName,
// a group's displayName or a PATCH value was stored as "�". A filter holding one is refused
// 400 invalidFilter (invalidPath in a PATCH path), not looked up as "�". Real records, a real
// OpenID provider, the console process.
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
let b: Awaited<ReturnType<typeof brandWithSso>>;
let scim: ReturnType<typeof scimClient>;
let userId: string;
let groupId: string;

const user = (email: string) => ({
  schemas: [USER_SCHEMA],
  userName: email,
  emails: [{ primary: true, type: 'work', value: email }],
});

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
  const client = idpClient(cs, 'half');
  idp = await startTestIdp({ clients: [client] });
  b = await brandWithSso(cs, idp, client, `half-${randomHex(4)}.test`);
  scim = scimClient(cs, await scimTokenOf(b.ownerHttp, b.brand.id, 'Okta'));
  const made = await scim('POST', '/Users', {
    ...user(`ann@${b.domain}`),
    displayName: 'Ann 🍕',
    name: { givenName: 'Ann', familyName: 'Lee' },
  });
  expect(made.status).toBe(201);
  userId = made.body.id as string;
  const group = await scim('POST', '/Groups', {
    schemas: [GROUP_SCHEMA],
    displayName: 'Sales',
    members: [{ value: userId }],
  });
  expect(group.status).toBe(201);
  groupId = group.body.id as string;
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

/** Every SCIM user and group the brand has, as stored. */
async function directory() {
  const db = cs.stack.db.pool;
  const users = await db.query(`select * from records.scim_users where brand_id = $1 order by id`, [
    b.brand.id,
  ]);
  const groups = await db.query(
    `select * from records.scim_groups where brand_id = $1 order by id`,
    [b.brand.id],
  );
  return JSON.stringify({ users: users.rows, groups: groups.rows });
}

const answer = (asked: string, a: ScimAnswer) => ({
  asked,
  status: a.status,
  schema: (a.body.schemas as string[] | undefined)?.[0],
  scimType: a.body.scimType,
  detail: a.body.detail,
});
const HALF =
  'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji)';
const refused = (asked: string, scimType: string, detail: string) => ({
  asked,
  status: 400,
  schema: 'urn:ietf:params:scim:api:messages:2.0:Error',
  scimType,
  detail,
});
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });

describe('a lone surrogate in a SCIM body', () => {
  it('is refused 400 invalidValue, naming the attribute, and nothing is stored', async () => {
    const before = await directory();
    const fresh = () => `half-${randomHex(3)}@${b.domain}`;
    const asks: [string, string, string, unknown, string][] = [
      [
        'POST userName',
        'POST',
        '/Users',
        user(`half\ud800-${randomHex(3)}@${b.domain}`),
        'userName',
      ],
      [
        'POST displayName',
        'POST',
        '/Users',
        { ...user(fresh()), displayName: 'Bo \ud83d' },
        'displayName',
      ],
      [
        'POST name.givenName',
        'POST',
        '/Users',
        { ...user(fresh()), name: { givenName: '\ude00Bo', familyName: 'Ng' } },
        'name.givenName',
      ],
      [
        'POST emails[].value',
        'POST',
        '/Users',
        {
          ...user(fresh()),
          emails: [
            { primary: true, type: 'work', value: fresh() },
            { type: 'home', value: `bo\udfff@home.test` },
          ],
        },
        'emails[1].value',
      ],
      [
        'POST externalId',
        'POST',
        '/Users',
        { ...user(fresh()), externalId: 'ext-\ud800' },
        'externalId',
      ],
      [
        'POST group displayName',
        'POST',
        '/Groups',
        { schemas: [GROUP_SCHEMA], displayName: 'Ops \ud800' },
        'displayName',
      ],
      [
        'POST group externalId',
        'POST',
        '/Groups',
        { schemas: [GROUP_SCHEMA], displayName: `Ops ${randomHex(3)}`, externalId: '\udc00' },
        'externalId',
      ],
      [
        'PUT displayName',
        'PUT',
        `/Users/${userId}`,
        { ...user(`ann@${b.domain}`), displayName: 'Ann \ud83d' },
        'displayName',
      ],
      [
        'PUT group displayName',
        'PUT',
        `/Groups/${groupId}`,
        { schemas: [GROUP_SCHEMA], displayName: 'Sales \ud83d', members: [{ value: userId }] },
        'displayName',
      ],
      [
        'PATCH replace displayName',
        'PATCH',
        `/Users/${userId}`,
        patch({ op: 'replace', path: 'displayName', value: 'Ann \ud83d' }),
        'displayName (operation 1)',
      ],
      [
        'PATCH path-less replace of name.familyName, second operation',
        'PATCH',
        `/Users/${userId}`,
        patch(
          { op: 'replace', path: 'displayName', value: 'Ann L.' },
          { op: 'replace', value: { name: { familyName: 'L\udc00' } } },
        ),
        'name.familyName (operation 2)',
      ],
      [
        'PATCH add emails',
        'PATCH',
        `/Users/${userId}`,
        patch({ op: 'add', path: 'emails', value: [{ type: 'home', value: '\ud800@home.test' }] }),
        'emails[0].value (operation 1)',
      ],
      [
        'PATCH group displayName',
        'PATCH',
        `/Groups/${groupId}`,
        patch({ op: 'replace', path: 'displayName', value: '\ud800Sales' }),
        'displayName (operation 1)',
      ],
    ];
    const answers = [];
    for (const [asked, method, path, body] of asks) {
      answers.push(answer(asked, await scim(method, path, body)));
    }
    expect(answers).toEqual(
      asks.map(([asked, , , , where]) => refused(asked, 'invalidValue', `${where}: ${HALF}`)),
    );
    const after = await directory();
    expect(after).toBe(before);
    expect(after).not.toContain('\ufffd');
  });

  it('is refused in a filter, 400 invalidFilter (invalidPath in a PATCH path), never looked up as U+FFFD', async () => {
    const before = await directory();
    const asks: [string, string, string, unknown, string, string][] = [
      [
        'users search',
        'POST',
        '/Users/.search',
        { schemas: [SEARCH_SCHEMA], filter: 'userName eq "ann\ud800"' },
        'invalidFilter',
        `filter ${HALF}.`,
      ],
      [
        'groups search',
        'POST',
        '/Groups/.search',
        { schemas: [SEARCH_SCHEMA], filter: 'displayName eq "\udc00"' },
        'invalidFilter',
        `filter ${HALF}.`,
      ],
      [
        'a PATCH path with a filter',
        'PATCH',
        `/Users/${userId}`,
        patch({ op: 'remove', path: 'emails[value eq "\ud800@home.test"]' }),
        'invalidPath',
        `path ${HALF}.`,
      ],
    ];
    const answers = [];
    for (const [asked, method, path, body] of asks) {
      answers.push(answer(asked, await scim(method, path, body)));
    }
    expect(answers).toEqual(
      asks.map(([asked, , , , scimType, detail]) => refused(asked, scimType, detail)),
    );
    expect(await directory()).toBe(before);
  });

  it('leaves whole characters alone: an emoji (a surrogate pair) is stored as sent', async () => {
    const made = await scim('POST', '/Users', {
      ...user(`emoji-${randomHex(3)}@${b.domain}`),
      displayName: 'Ünïcødé 🍕',
    });
    expect(made.status).toBe(201);
    expect(made.body.displayName).toBe('Ünïcødé 🍕');
  });
});

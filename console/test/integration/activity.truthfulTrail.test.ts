// The audit trail tells the truth, over HTTP against real records, webhooks, plans, the
// console and a real identity provider: a sign-in the brand refuses is
// recorded as refused (method and reason), never as "signed in"; an SSO refusal is recorded
// too; every row carries the address and User-Agent of the request that made it, and the
// page and both exports show them; a cursor is bound to its brand and its listing.
import { randomHex } from '@brand/testkit';
import type { TestIdp } from '@brand/testkit';
import { ConsoleHttp, csrfOf } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { brandWithSso, idpClient, signInWithSso, startTestIdp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let registered: ReturnType<typeof idpClient>[];

beforeAll(async () => {
  cs = await startConsoleStack();
  registered = ['a1', 'a2'].map((n) => idpClient(cs, n));
  idp = await startTestIdp({ clients: registered });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

interface Row {
  action: string;
  summary: string;
  actor_email: string;
  client_address: string;
  user_agent: string;
}

async function activityOf(brandId: string, action: string): Promise<Row[]> {
  const { rows } = await cs.stack.db.pool.query<Row>(
    `select action, summary, actor_email, client_address, user_agent from records.activity
     where brand_id = $1 and action = $2 order by created_at, id`,
    [brandId, action],
  );
  return rows;
}

/** Signs in by emailed link from a browser that names itself `userAgent`. */
async function signInAs(email: string, userAgent: string): Promise<ConsoleHttp> {
  const http = new ConsoleHttp(cs.url);
  http.userAgent = userAgent;
  const since = Date.now() - 1_000;
  expect((await http.post('/sign-in', { email })).status).toBe(200);
  const link = await cs.latestLink(email, since);
  expect((await http.post(new URL(link).pathname, {})).status).toBe(303);
  return http;
}

describe('sign-ins in the audit trail', () => {
  it('records an emailed link the brand refuses as refused, with the method and the reason', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    await cs.stack.db.pool.query(
      `update records.brands set sign_in_policy = 'passkey_or_sso' where id = $1`,
      [brand.id],
    );
    const http = await signInAs(owner.email, 'AuditProbe/1.0 (refused)');
    expect((await http.get(`/brands/${brand.id}/keys`)).status).toBe(403);

    expect(await activityOf(brand.id, 'member.signed_in')).toEqual([]);
    const refused = await activityOf(brand.id, 'member.sign_in_refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      actor_email: owner.email,
      user_agent: 'AuditProbe/1.0 (refused)',
    });
    expect(refused[0]!.summary).toContain('an emailed link');
    expect(refused[0]!.summary).toContain('requires signing in with a passkey');
    expect(refused[0]!.client_address).toMatch(/127\.0\.0\.1/);
  });

  it('records a single sign-on the brand refuses (not a member), with the reason', async () => {
    const { brand, domain } = await brandWithSso(cs, idp, registered[0]!);
    const stranger = `stranger-${randomHex(3)}@${domain}`;
    idp.addUser({ email: stranger, password: 'pw-stranger' });
    const { answer } = await signInWithSso(cs, { email: stranger, password: 'pw-stranger' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-console-error')).toBe('sso_refused');
    const refused = await activityOf(brand.id, 'member.sign_in_refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]!.actor_email).toBe(stranger);
    expect(refused[0]!.summary).toContain('single sign-on');
    expect(refused[0]!.summary).toContain('not a member');
    expect(refused[0]!.client_address).toMatch(/127\.0\.0\.1/);
  });
});

describe('the address and User-Agent of every row', () => {
  it('are stored, shown on the activity page and carried by both exports', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInAs(owner.email, 'AuditProbe/2.0 (rows)');
    // A change made through the console: the row names the browser that made it.
    const keysPage = await http.get(`/brands/${brand.id}/keys`);
    const made = await http.post(`/brands/${brand.id}/keys`, {
      _csrf: csrfOf(keysPage.body),
      name: 'Audit probe key',
      environment: 'live',
      expires: 'none',
    });
    expect(made.status).toBeLessThan(400);
    const signedIn = await activityOf(brand.id, 'member.signed_in');
    expect(signedIn[0]).toMatchObject({ user_agent: 'AuditProbe/2.0 (rows)' });
    const created = await activityOf(brand.id, 'key.created');
    expect(created[0]).toMatchObject({ user_agent: 'AuditProbe/2.0 (rows)' });
    expect(created[0]!.client_address).toMatch(/127\.0\.0\.1/);

    const page = await http.get(`/brands/${brand.id}/activity`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('AuditProbe/2.0 (rows)');
    expect(page.body).toMatch(/127\.0\.0\.1/);

    const csv = await http.get(`/brands/${brand.id}/activity/export?format=csv`);
    const header = csv.body.split('\r\n')[0]!;
    expect(header.split(',')).toEqual(expect.arrayContaining(['client_address', 'user_agent']));
    expect(csv.body).toContain('AuditProbe/2.0 (rows)');
    const jsonl = await http.get(`/brands/${brand.id}/activity/export?format=jsonl`);
    const rows = jsonl.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    const keyRow = rows.find((r) => r.action === 'key.created');
    expect(keyRow?.user_agent).toBe('AuditProbe/2.0 (rows)');
    expect(keyRow?.client_address).toMatch(/127\.0\.0\.1/);
  });

  it('are stored by the webhooks service too (a receiver added in the console)', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInAs(owner.email, 'AuditProbe/2.0 (receivers)');
    const list = await http.get(`/brands/${brand.id}/receivers`);
    const added = await http.post(`/brands/${brand.id}/receivers`, {
      _csrf: csrfOf(list.body),
      url: 'https://localhost:9443/audit-probe',
      label: 'Audit probe receiver',
      events: 'payout.paid',
    });
    expect(added.status).toBeLessThan(400);
    const { rows } = await cs.stack.db.pool.query<Row>(
      `select action, summary, actor_email, client_address, user_agent from webhooks.activity
       where brand_id = $1 and action like 'receiver.%' order by created_at, id`,
      [brand.id],
    );
    expect(rows[0]).toMatchObject({ user_agent: 'AuditProbe/2.0 (receivers)' });
    expect(rows[0]!.client_address).toMatch(/127\.0\.0\.1/);
  });
});

describe('activity cursors', () => {
  it('are bound to their brand and their listing: another’s is a 400 invalid_cursor', async () => {
    const b = await brandWithOwner(cs);
    const c = await brandWithOwner(cs);
    // One person owns both, so only the cursor's binding can refuse it.
    await cs.stack.admin.addMember({ brandId: b.brand.id, email: c.owner.email, role: 'owner' });
    for (let i = 0; i < 60; i++) {
      await cs.stack.db.pool.query(
        `insert into records.activity (id, brand_id, action, actor_email, subject_id, summary)
         values ($1, $2, 'key.created', 'operator', 'key_x', 'seeded')`,
        [`act_c${String(i).padStart(3, '0')}${randomHex(3)}`, c.brand.id],
      );
    }
    const http = await signInHttp(cs, c.owner.email);
    const first = await http.get(`/brands/${c.brand.id}/activity`);
    const cursor = /[?&;]cursor=([A-Za-z0-9_-]+)/.exec(first.body)?.[1];
    expect(cursor).toBeDefined();
    // its own listing: fine
    expect((await http.get(`/brands/${c.brand.id}/activity?cursor=${cursor!}`)).status).toBe(200);

    for (const path of [
      `/brands/${b.brand.id}/activity?cursor=${cursor!}`,
      `/brands/${b.brand.id}/activity/export?format=csv&cursor=${cursor!}`,
      `/brands/${c.brand.id}/activity?action=key.&cursor=${cursor!}`,
    ]) {
      const res = await http.get(path);
      expect([path, res.status, res.headers.get('x-console-error')]).toEqual([
        path,
        400,
        'invalid_cursor',
      ]);
      // in the form's words since 664d7221, not the shared parser's ("cursor: belongs to another …")
      expect(res.body).toContain(
        'That page link is not one of this list: start again from the newest.',
      );
    }
  });
});

// Issue 37: hostile inputs to the routes of signing in and of a person's own account, beside
// console.hostileProbe.test.ts. Each is sent through the console's HTTP surface (real records,
// webhooks, plans, gateway, SMTP sink and console) and checked by its real outcome.
import { ConsoleHttp, csrfOf } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

const sessionIdsOf = (page: string): string[] =>
  [...page.matchAll(/action="\/sessions\/(ses_[A-Za-z0-9]+)\/end"/g)].map((m) => m[1]!);

describe('sessions of another address', () => {
  it('cannot be ended: 404, and that session goes on working', async () => {
    const a = await brandWithOwner(cs);
    const b = await brandWithOwner(cs);
    const attacker = await signInHttp(cs, a.owner.email);
    const victim = await signInHttp(cs, b.owner.email);
    const [victimSession] = sessionIdsOf((await victim.get('/sessions')).body);
    const page = await attacker.get('/sessions');
    expect(page.body).not.toContain(victimSession);

    for (const id of [victimSession!, 'ses_doesnotexist', "ses_x'--", '..%2Fsign-out']) {
      const res = await attacker.post(`/sessions/${id}/end`, { _csrf: csrfOf(page.body) });
      expect({ id, status: res.status }).toEqual({ id, status: 404 });
    }
    expect((await victim.get(`/brands/${b.brand.id}/keys`)).status).toBe(200);
    expect(sessionIdsOf((await victim.get('/sessions')).body)).toEqual([victimSession]);
  });

  it('a form without a session, or from another origin, changes nothing', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const victim = await signInHttp(cs, owner.email);
    const page = await victim.get('/sessions');
    const [id] = sessionIdsOf(page.body);
    const stranger = new ConsoleHttp(cs.url);
    expect((await stranger.post(`/sessions/${id}/end`, {})).status).toBe(401);
    expect((await stranger.post('/sessions/others/end', {})).status).toBe(401);
    const crossSite = await victim.post(
      `/sessions/${id}/end`,
      { _csrf: csrfOf(page.body) },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect((await victim.get(`/brands/${brand.id}/keys`)).status).toBe(200);
  });
});

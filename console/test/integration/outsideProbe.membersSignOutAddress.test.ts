// What an outside probe of the console in Chromium found (2026-11-30), each checked over HTTP:
// A. opened at http://127.0.0.1:8090 while the console is http://localhost:8090, every form was
//    refused with a 403 that did not say where to go;
// B. removing a member was one click, offered on the last owner's row too, and its notice did not
//    say who was removed;
// C. signing out in a second tab (the session already ended) was a 401 with no way to sign in;
// D. "request another link" did not say that links to one address are spaced.
import { randomHex } from '@brand/testkit';
import { ConsoleHttp, csrfOf } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true, publicHost: 'localhost' });
}, 120_000);
afterAll(() => cs?.close());

/** The console at the other loopback name the probe opened it by. */
const byIp = (): string => cs.url.replace('//localhost:', '//127.0.0.1:');

describe('A: another address of the console', () => {
  it('sends a page opened at 127.0.0.1 to the same path at the configured address', async () => {
    const answer = await new ConsoleHttp(byIp()).get('/sign-in?signed_out=1');
    expect([302, 308]).toContain(answer.status);
    expect(answer.location).toBe(`${cs.url}/sign-in?signed_out=1`);
    // At its own address the page is served.
    expect((await new ConsoleHttp(cs.url).get('/sign-in')).status).toBe(200);
  });

  it("keeps refusing a form from another origin, and the refusal names the console's address", async () => {
    const answer = await new ConsoleHttp(byIp()).post('/sign-in', { email: 'a@brand.test' });
    expect(answer.status).toBe(403);
    expect(answer.body).toContain(cs.url);
  });

  it('does not redirect the internal listener (probes, metrics)', async () => {
    const live = await fetch(`${cs.opsUrl}/livez`, { redirect: 'manual' });
    expect(live.status).toBe(200);
  });
});

describe('B: removing a member', () => {
  it('asks first, is not offered for the last owner, and the notice names who was removed', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const email = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email, role: 'member' });
    const http = await signInHttp(cs, owner.email);
    const base = `/brands/${brand.id}/members`;

    const list = await http.get(base);
    const rowOf = (body: string, who: string) => {
      const start = body.indexOf(`<td>${who}</td>`);
      return body.slice(start, body.indexOf('</tr>', start));
    };
    // The member's row leads to a question, not to a form that removes at once.
    const row = rowOf(list.body, email);
    const ask = /href="([^"]*\/members\/mem_[A-Za-z0-9]+\/remove)"/.exec(row)?.[1];
    expect(ask).toBeDefined();
    expect(row).not.toMatch(/<form[^>]*\/remove"/);
    // The last owner's row offers no Remove at all.
    expect(rowOf(list.body, owner.email)).not.toContain('/remove');

    const question = await http.get(ask!);
    expect(question.status).toBe(200);
    expect(question.body).toContain(`Remove ${email}`);
    expect(question.body).toContain(`href="${base}"`); // Cancel
    const removed = await http.post(ask!, { _csrf: csrfOf(question.body) });
    expect(removed.status).toBe(303);
    const after = await http.get(removed.location!);
    expect(after.body).toMatch(new RegExp(`Removed ${email.replace(/\./g, '\\.')}`));
    expect(after.body).not.toContain(`<td>${email}</td>`);
  });
});

describe('C: signing out where the session already ended', () => {
  it('lands on the signed-out page, and other forms offer a way to sign in', async () => {
    const { owner } = await brandWithOwner(cs);
    const first = await signInHttp(cs, owner.email);
    const brands = await first.get('/brands');
    const csrf = csrfOf(brands.body);
    // The second tab: the same browser (cookie), signed out there first.
    const second = new ConsoleHttp(cs.url);
    second.cookie = first.cookie;
    expect((await second.post('/sign-out', { _csrf: csrf })).status).toBe(303);

    const late = await first.post('/sign-out', { _csrf: csrf });
    expect(late.status).toBe(303);
    expect(late.location).toBe('/sign-in?signed_out=1');

    const again = await signInHttp(cs, owner.email);
    const page = await again.get('/brands');
    const token = csrfOf(page.body);
    const stale = new ConsoleHttp(cs.url);
    stale.cookie = again.cookie;
    await again.post('/sign-out', { _csrf: token });
    const refused = await stale.post('/sign-out-everywhere', { _csrf: token });
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('href="/sign-in"');
  });
});

describe('D: asking for a link again', () => {
  it('says links are spaced, in the same words for any address', async () => {
    const { owner } = await brandWithOwner(cs);
    const strangerEmail = `nobody-${randomHex(4)}@brand.test`;
    const member = await new ConsoleHttp(cs.url).post('/sign-in', { email: owner.email });
    const stranger = await new ConsoleHttp(cs.url).post('/sign-in', { email: strangerEmail });
    for (const page of [member, stranger]) {
      expect(page.status).toBe(200);
      expect(page.body).toMatch(/at most one link a minute/);
    }
    // Nothing but the address differs (a per-answer nonce aside).
    const words = (body: string, email: string) =>
      body
        .split(email)
        .join('<address>')
        .replace(/nonce="[^"]*"/g, '');
    expect(words(member.body, owner.email)).toBe(words(stranger.body, strangerEmail));
  });
});

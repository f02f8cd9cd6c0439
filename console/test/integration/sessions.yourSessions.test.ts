// "Your sessions" through the console's HTTP surface: each session of the signed-in address with
// its device in words, address, sign-in and last-seen times; signing out one session or every other
// one (CSRF-checked); the members page showing owners each member's last sign-in and how. Real
// records, webhooks, plans, gateway, SMTP sink and console.
import { randomHex } from '@brand/testkit';
import { ConsoleHttp, csrfOf } from '../browserlessClient';
import { brandWithOwner as brandWithOwnerOf } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  // The console believes X-Forwarded-For, so each client of a test has its own address.
  cs = await startConsoleStack({ consoleEnv: { TRUST_PROXY: 'true' } });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:133.0) Gecko/20100101 Firefox/133.0';

/** Signs `email` in from a client at `ip` with this browser, through the form and the link. */
async function signInFrom(email: string, ip: string, userAgent: string): Promise<ConsoleHttp> {
  const http = new ConsoleHttp(cs.url, ip);
  http.userAgent = userAgent;
  const since = Date.now() - 1_000;
  expect((await http.post('/sign-in', { email })).status).toBe(200);
  const redeemed = await http.post(new URL(await cs.latestLink(email, since)).pathname, {});
  expect(redeemed.status).toBe(303);
  return http;
}

/** The session ids in the sign-out forms of the page, in page order. */
const sessionIdsOf = (page: string): string[] =>
  [...page.matchAll(/action="\/sessions\/(ses_[A-Za-z0-9]+)\/end"/g)].map((m) => m[1]!);

describe('Your sessions', () => {
  it('lists each session with device, address and times, and signs out one, then all others', async () => {
    const { brand, owner } = await brandWithOwnerOf(cs);
    const laptop = await signInFrom(owner.email, '198.51.100.21', CHROME_LINUX);
    const other = await signInFrom(owner.email, '198.51.100.22', FIREFOX_MAC);
    const third = await signInFrom(owner.email, '198.51.100.23', CHROME_LINUX);

    const page = await laptop.get('/sessions');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Chrome on Linux');
    expect(page.body).toContain('Firefox on macOS');
    for (const ip of ['198.51.100.21', '198.51.100.22', '198.51.100.23']) {
      expect(page.body).toContain(`<code class="address">${ip}</code>`);
    }
    expect(page.body.match(/\(this session\)/g)).toHaveLength(1);
    expect(page.body).toContain('by emailed link');
    // Newest first: the third session, the other, then this one.
    const ids = sessionIdsOf(page.body);
    expect(ids).toHaveLength(3);

    // Without the form's token nothing ends.
    const forged = await laptop.post(`/sessions/${ids[1]}/end`, { _csrf: 'x' });
    expect(forged.status).toBe(403);
    expect((await other.get(`/brands/${brand.id}/keys`)).status).toBe(200);

    const ended = await laptop.post(`/sessions/${ids[1]}/end`, { _csrf: csrfOf(page.body) });
    expect(ended).toMatchObject({ status: 303, location: '/sessions?done=ended' });
    expect(await other.get(`/brands/${brand.id}/keys`)).toMatchObject({
      status: 303,
      location: `/sign-in?next=${encodeURIComponent(`/brands/${brand.id}/keys`)}`,
    });
    expect((await third.get(`/brands/${brand.id}/keys`)).status).toBe(200);

    const after = await laptop.get('/sessions');
    expect(sessionIdsOf(after.body)).toEqual([ids[0], ids[2]]);
    expect(after.body).toContain('Sign out all other sessions (1)');
    const rest = await laptop.post('/sessions/others/end', { _csrf: csrfOf(after.body) });
    expect(rest).toMatchObject({ status: 303, location: '/sessions?done=others' });
    expect((await third.get(`/brands/${brand.id}/keys`)).status).toBe(303);
    const alone = await laptop.get('/sessions?done=others');
    expect(sessionIdsOf(alone.body)).toEqual([ids[2]]);
    expect(alone.body).toContain('Every other session is signed out.');
    expect(alone.body).not.toContain('Sign out all other sessions');
  });

  it('signing out this session from the list clears the cookie and goes to sign-in', async () => {
    const { brand, owner } = await brandWithOwnerOf(cs);
    const http = await signInFrom(owner.email, '198.51.100.24', CHROME_LINUX);
    const page = await http.get('/sessions');
    const [id] = sessionIdsOf(page.body);
    const out = await http.post(`/sessions/${id}/end`, { _csrf: csrfOf(page.body) });
    expect(out).toMatchObject({ status: 303, location: '/sign-in?signed_out=1' });
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-console_session=;/);
    http.cookie ||= 'x';
    expect((await http.get(`/brands/${brand.id}/keys`)).status).toBe(303);
  });

  it('sends a visitor without a session to sign in', async () => {
    expect(await new ConsoleHttp(cs.url).get('/sessions')).toMatchObject({
      status: 303,
      location: '/sign-in?next=%2Fsessions',
    });
  });
});

describe('members page', () => {
  it("shows owners each member's last sign-in and its method, or Never", async () => {
    const { brand, owner } = await brandWithOwnerOf(cs);
    const invited = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email: invited, role: 'member' });
    const http = await signInFrom(owner.email, '198.51.100.25', CHROME_LINUX);
    const page = await http.get(`/brands/${brand.id}/members`);
    expect(page.status).toBe(200);
    const rowOf = (email: string) =>
      page.body.slice(page.body.indexOf(`<td>${email}</td>`)).split('</tr>')[0]!;
    // the row's text, its markup (a time's parts, the hint) taken out
    expect(rowOf(owner.email).replace(/<[^>]+>/g, '')).toMatch(
      /\d{4}-\d\d-\d\d \d\d:\d\d UTC by emailed link/,
    );
    expect(rowOf(invited)).toContain('Never');
  });
});

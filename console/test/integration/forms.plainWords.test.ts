// The form errors an outside probe (2026-11-30) met in a library's words, a dead end or our own
// field paths, each through the console's HTTP surface with the real services behind it.
import { csrfOf } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

async function ownerOnPage(path: (brandId: string) => string) {
  const { brand, owner } = await brandWithOwner(cs);
  const http = await signInHttp(cs, owner.email);
  const page = await http.get(path(brand.id));
  expect(page.status).toBe(200);
  return { brand, http, csrf: csrfOf(page.body) };
}

describe('a field too long', () => {
  it('is refused in a sentence naming the field and its limit', async () => {
    const { brand, http, csrf } = await ownerOnPage((id) => `/brands/${id}/keys`);
    const key = await http.post(`/brands/${brand.id}/keys`, {
      _csrf: csrf,
      name: 'k'.repeat(10_000),
      environment: 'live',
    });
    expect(key.status).toBe(400);
    expect(key.body).toContain('A key name is at most 200 characters.');

    const invite = await http.post(`/brands/${brand.id}/members`, {
      _csrf: csrf,
      email: `${'a'.repeat(10_000)}@brand.test`,
      role: 'member',
    });
    expect(invite.status).toBe(400);
    expect(invite.body).toContain('An email address is at most 254 characters.');
    for (const page of [key.body, invite.body]) expect(page).not.toMatch(/Too big|expected string/);
  });
});

describe('a form too large to read', () => {
  it('is a 413 that says so and leads back to the brand, not a dead end', async () => {
    const { brand, http, csrf } = await ownerOnPage((id) => `/brands/${id}/keys`);
    const answer = await http.post(`/brands/${brand.id}/keys`, {
      _csrf: csrf,
      name: '🚀'.repeat(10_000),
      environment: 'live',
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.get('x-console-error')).toBe('payload_too_large');
    expect(answer.body).toContain('That is too much text: a form holds at most 32 kB');
    expect(answer.body).toContain(`href="/brands/${brand.id}"`);
  });
});

describe('allowed email domains that are not domain names', () => {
  it('are named, once, without our field paths', async () => {
    const { brand, http, csrf } = await ownerOnPage((id) => `/brands/${id}/sso`);
    const answer = await http.post(`/brands/${brand.id}/sso`, {
      _csrf: csrf,
      issuer: 'https://login.example.com',
      client_id: 'console',
      client_secret: 'secret',
      allowed_domains: '<script>.test, 🚀.test',
      enabled: 'on',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatch(
      /“&lt;script(&gt;|>)\.test” and “🚀\.test” are not domain names; each allowed domain is a domain name, such as example\.com\./,
    );
    expect(answer.body).not.toContain('allowedDomains');
  });
});

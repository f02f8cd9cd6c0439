// The console's side of rolling a key and key expiry, over HTTP against real records, gateway and
// console: roll (the replacement shown once, the old key counting down), expire now, an expiry at
// creation; every new form checks Origin and the CSRF token, and non-owners are refused by records
// whatever the console shows.
import { randomHex, waitFor } from '@brand/testkit';
import { csrfOf } from '../browserlessClient';
import { brandWithOwner as brandWithOwnerOf, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

const signIn = (email: string) => signInHttp(cs, email);

async function gatewayStatus(key: string): Promise<number> {
  const res = await fetch(`${cs.stack.gateway.url}/api/v1/campaigns?limit=1`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return res.status;
}

async function ownerWithKey() {
  const { brand, owner } = await brandWithOwnerOf(cs);
  const { key, secret } = await cs.stack.admin.createKey({
    brandId: brand.id,
    actorEmail: owner.email,
    name: `Warehouse sync ${randomHex(2)}`,
  });
  return { brand, owner, key, secret };
}

describe('rolling a key in the console', () => {
  it('shows the replacement once, keeps the old key counting down, and expire now ends it; forms check Origin and CSRF', async () => {
    const { brand, owner, key, secret } = await ownerWithKey();
    const http = await signIn(owner.email);
    const base = `/brands/${brand.id}/keys`;
    const list = await http.get(base);
    expect(list.body).toContain(`href="${base}/${key.id}/roll"`);

    const confirm = await http.get(`${base}/${key.id}/roll`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('The old key expires');
    const csrf = csrfOf(confirm.body);

    // Forged or token-less posts change nothing.
    const form = { _csrf: csrf, old_key_expires_in: '24h' };
    expect(
      (await http.post(`${base}/${key.id}/roll`, form, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect((await http.post(`${base}/${key.id}/roll`, { old_key_expires_in: '24h' })).status).toBe(
      403,
    );
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(1);
    expect(
      (await http.post(`${base}/${key.id}/roll`, { _csrf: csrf, old_key_expires_in: '2w' })).status,
    ).toBe(400);

    const rolled = await http.post(`${base}/${key.id}/roll`, form);
    expect(rolled.status).toBe(303);
    const shown = await http.get(rolled.location!);
    expect(shown.status).toBe(200);
    const newSecret = /(bk_live_[A-Za-z0-9]{32,})/.exec(shown.body)?.[1];
    expect(newSecret).toBeDefined();
    expect(newSecret).not.toBe(secret);
    expect(shown.body).toMatch(/keeps working until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect((await http.get(rolled.location!)).status).toBe(410);

    // Both keys work during the overlap; the list shows the countdown with the UTC time.
    expect(await gatewayStatus(secret)).toBe(200);
    expect(await gatewayStatus(newSecret!)).toBe(200);
    const counting = await http.get(base);
    expect(counting.body).toMatch(/expires in 23 h 59 min|expires in 1 d 0 h/);
    expect(counting.body).toContain('/static/countdown.js');
    expect(counting.body).toContain('replaced by');
    // A rolled key is not rolled again; it can be expired now.
    expect(counting.body).not.toContain(`href="${base}/${key.id}/roll"`);
    expect(counting.body).toContain(`href="${base}/${key.id}/expire"`);

    const expirePage = await http.get(`${base}/${key.id}/expire`);
    expect(expirePage.body).toContain('Expire now');
    expect(
      (
        await http.post(
          `${base}/${key.id}/expire`,
          { _csrf: csrf },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    expect((await http.post(`${base}/${key.id}/expire`, {})).status).toBe(403);
    expect(await gatewayStatus(secret)).toBe(200);

    const expired = await http.post(`${base}/${key.id}/expire`, { _csrf: csrf });
    expect(expired.status).toBe(303);
    await waitFor(async () => (await gatewayStatus(secret)) === 401, {
      timeoutMs: 1_000,
      intervalMs: 20,
      what: 'the gateway to refuse the expired key',
    });
    expect(await gatewayStatus(newSecret!)).toBe(200);
    const after = await http.get(expired.location!);
    expect(after.body).toContain('The key has expired');
    expect(after.body).toMatch(/expired \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(after.body).not.toContain(`href="${base}/${key.id}/expire"`);

    // Rolling the expired key again is refused in words (key_inactive).
    const again = await http.post(`${base}/${key.id}/roll`, form);
    expect(again.status).toBe(422);
    expect(again.body).toContain('can never be used again');

    // in the trail's rows (the filter's list names every action), read as shown: a dotted
    // action may wrap after its dot (<wbr>)
    const activity = await http.get(`/brands/${brand.id}/activity`);
    const trail = activity.body.slice(activity.body.indexOf('<tbody')).replaceAll('<wbr/>', '');
    expect(trail).toContain('key.rolled');
    expect(trail).toContain('key.expired');
  });

  it('gives a new key an expiry at creation, as a span or a UTC time', async () => {
    const { brand, owner } = await brandWithOwnerOf(cs);
    const http = await signIn(owner.email);
    const base = `/brands/${brand.id}/keys`;
    const csrf = csrfOf((await http.get(base)).body);
    const create = (extra: Record<string, string>) =>
      http.post(base, {
        _csrf: csrf,
        name: `Short ${randomHex(2)}`,
        environment: 'live',
        ...extra,
      });
    expect((await create({ expires: '7d' })).status).toBe(303);
    const at = new Date(Date.now() + 3 * 86_400_000);
    at.setUTCSeconds(0, 0);
    expect(
      (await create({ expires: 'at', expires_at: at.toISOString().slice(0, 16) })).status,
    ).toBe(303);
    const past = await create({ expires: 'at', expires_at: '2020-01-01T10:00' });
    expect(past.status).toBe(400);
    expect(past.body).toContain('The expiry must be in the future.');
    expect((await create({ expires: 'at', expires_at: 'soon' })).status).toBe(400);

    const keys = await cs.stack.admin.listKeys(brand.id);
    const expiries = keys.map((k) => Date.parse(k.expires_at ?? '')).sort();
    expect(expiries).toHaveLength(2);
    expect(expiries[0]).toBe(at.getTime());
    expect(Math.abs(expiries[1]! - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
  });

  it('refuses rolling and expiring by a non-owner, whatever they post', async () => {
    const { brand, key } = await ownerWithKey();
    const adminEmail = `admin-${randomHex(3)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email: adminEmail, role: 'admin' });
    await cs.stack.admin.access('setKeyExpiry', {
      key_id: key.id,
      now: false,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      actor_email: '',
    });
    const http = await signIn(adminEmail);
    const base = `/brands/${brand.id}/keys`;
    const page = await http.get(base);
    expect(page.body).not.toContain(`${key.id}/roll`);
    expect(page.body).not.toContain(`${key.id}/expire`);
    const csrf = csrfOf(page.body);
    const roll = await http.post(`${base}/${key.id}/roll`, {
      _csrf: csrf,
      old_key_expires_in: 'now',
    });
    expect(roll.status).toBe(403);
    const expire = await http.post(`${base}/${key.id}/expire`, { _csrf: csrf });
    expect(expire.status).toBe(403);
    const [listed] = await cs.stack.admin.listKeys(brand.id);
    expect(listed!.replaced_by).toBeUndefined();
    expect(Date.parse(listed!.expires_at!)).toBeGreaterThan(Date.now() + 3_000_000);
  });
});

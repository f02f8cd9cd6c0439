// A create form posted twice (a double click, a retry, back and resubmit) makes one key,
// receiver, audit stream or SCIM token, and its secret is still shown (forms/submitOnce.ts): an
// outside probe found two live keys, one whose secret nobody ever saw.
import { SHOWN_AGAIN_WITHIN_MS } from '../../src/reveal/oneTimeReveal';
import { brandWithOwner, hiddenFields, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

describe('creating a key from one form', () => {
  it('makes one key however often the form is posted, and shows its secret once', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInHttp(cs, owner.email);
    const base = `/brands/${brand.id}/keys`;
    const form = {
      ...hiddenFields((await http.get(base)).body, base),
      name: 'Double',
      environment: 'live',
    };

    // A double click: both posts arrive before either answers.
    const [a, b] = await Promise.all([http.post(base, form), http.post(base, form)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(1);
    // The browser shows the second answer: it is the one key's secret, not a second key.
    expect(b.location).toMatch(new RegExp(`^${base}/created/`));
    expect(a.location).toBe(b.location);
    const shown = await http.get(b.location!);
    expect(shown.status).toBe(200);
    const [key] = await cs.stack.admin.listKeys(brand.id);
    expect(shown.body).toContain(key!.prefix);

    // Back and resubmit, after the secret was shown: still one key, and the list says why.
    const again = await http.post(base, form);
    expect(again.status).toBe(303);
    expect(again.location).toBe(`${base}?repeat=created`);
    expect((await http.get(again.location!)).body).toContain(
      'This key was already created from this form',
    );
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(1);

    // A fresh form makes a second key; a mangled token makes none.
    const fresh = {
      ...hiddenFields((await http.get(base)).body, base),
      name: 'Second',
      environment: 'live',
    };
    expect((await http.post(base, fresh)).status).toBe(303);
    expect((await http.post(base, { ...fresh, _once: 'not-a-token' })).status).toBe(400);
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(2);
  });

  it('shows the secret once more to a repeat seconds after its page was read, once', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInHttp(cs, owner.email);
    const base = `/brands/${brand.id}/keys`;
    const form = () =>
      http.get(base).then((page) => ({
        ...hiddenFields(page.body, base),
        name: 'Pressed twice',
        environment: 'live',
      }));

    // A double click whose second press cancels the first answer's page after the server read
    // it: the repeat is sent back to that page, which shows the secret again, once.
    const first = await form();
    const answer = await http.post(base, first);
    expect((await http.get(answer.location!)).status).toBe(200);
    const repeat = await http.post(base, first);
    expect(repeat.location).toBe(answer.location);
    const [key] = await cs.stack.admin.listKeys(brand.id);
    const again = await http.get(repeat.location!);
    expect(again.status).toBe(200);
    expect(again.body).toContain(key!.prefix);
    expect((await http.get(repeat.location!)).status).toBe(410);
    expect((await http.post(base, first)).location).toBe(`${base}?repeat=created`);

    // Back and resubmit later than that: the list says the secret was shown.
    const second = await form();
    const shown = await http.post(base, second);
    expect((await http.get(shown.location!)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, SHOWN_AGAIN_WITHIN_MS + 500));
    expect((await http.post(base, second)).location).toBe(`${base}?repeat=created`);
    expect((await http.get(shown.location!)).status).toBe(410);
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(2);
  });

  it('rolls a key once however often the roll form is posted, and shows the replacement', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const { key } = await cs.stack.admin.createKey({
      brandId: brand.id,
      actorEmail: owner.email,
      name: 'Rolled twice',
    });
    const http = await signInHttp(cs, owner.email);
    const action = `/brands/${brand.id}/keys/${key.id}/roll`;
    const form = {
      ...hiddenFields((await http.get(action)).body, action),
      old_key_expires_in: '24h',
    };
    const [a, b] = await Promise.all([http.post(action, form), http.post(action, form)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(b.location).toBe(a.location);
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(2);
    expect((await http.get(b.location!)).body).toContain('bk_live_');
    const again = await http.post(action, form);
    expect(again.location).toBe(`/brands/${brand.id}/keys?repeat=rolled`);
    expect((await http.get(again.location!)).body).toContain('This key was already rolled');
  });

  it('lets a form refused by records be posted again, and reads a typed UTC expiry', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInHttp(cs, owner.email);
    const base = `/brands/${brand.id}/keys`;
    const page = (await http.get(base)).body;
    expect(page).toContain('placeholder="YYYY-MM-DD HH:MM"');
    expect(page).not.toContain('datetime-local');
    const hidden = hiddenFields(page, base);
    // campaigns:prepare is live-only: records refuses it on a test key, nothing created.
    const refused = await http.post(base, {
      ...hidden,
      name: 'Prep',
      environment: 'test',
      campaigns_prepare: 'on',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(0);

    const at = new Date(Date.now() + 3 * 86_400_000);
    at.setUTCSeconds(0, 0);
    const typed = at.toISOString().slice(0, 16).replace('T', ' ');
    const made = await http.post(base, {
      ...hidden,
      name: 'Prep',
      environment: 'live',
      expires: 'at',
      expires_at: typed,
    });
    expect(made.status).toBe(303);
    const [key] = await cs.stack.admin.listKeys(brand.id);
    expect(Date.parse(key!.expires_at!)).toBe(at.getTime());
    const past = await http.post(base, {
      ...hiddenFields((await http.get(base)).body, base),
      name: 'Late',
      environment: 'live',
      expires: 'at',
      expires_at: '2020-01-01 10:00',
    });
    expect(past.status).toBe(400);
    expect(past.body).toContain('The expiry must be in the future.');
  });
});

describe('the other create forms that show a secret once', () => {
  /** Posts the form at `action` on `listPath` twice at once, then once more after the first answer was read. */
  async function postedThrice(listPath: string, action: string, fields: Record<string, string>) {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInHttp(cs, owner.email);
    const base = `/brands/${brand.id}`;
    const page = await http.get(`${base}${listPath}`);
    expect(page.status).toBe(200);
    const form = { ...hiddenFields(page.body, `${base}${action}`), ...fields };
    expect(form._once).toBeDefined();
    const [a, b] = await Promise.all([
      http.post(`${base}${action}`, form),
      http.post(`${base}${action}`, form),
    ]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(a.location).toBe(b.location);
    expect((await http.get(b.location!)).status).toBe(200);
    const again = await http.post(`${base}${action}`, form);
    expect(again.status).toBe(303);
    return { brand, http, again };
  }

  it('adds one receiver', async () => {
    const { brand, http, again } = await postedThrice('/receivers', '/receivers', {
      url: 'https://localhost:9443/twice',
      label: 'Twice',
      events: 'payout.paid',
    });
    expect(again.location).toBe(`/brands/${brand.id}/receivers?repeat=created`);
    expect((await http.get(again.location!)).body).toContain('This receiver was already added');
    const listed = (await http.get(`/brands/${brand.id}/receivers`)).body;
    expect(listed.split('https://localhost:9443/twice').length - 1).toBe(1);
  });

  it('makes one SCIM token', async () => {
    const { brand, http, again } = await postedThrice('/provisioning', '/provisioning/tokens', {
      name: 'Twice',
    });
    expect(again.location).toBe(`/brands/${brand.id}/provisioning?repeat=created`);
    const page = (await http.get(again.location!)).body;
    expect(page).toContain('This token was already made');
    expect(page.split('>Twice<').length - 1).toBe(1);
  });

  it('connects one audit stream', async () => {
    const { brand, http, again } = await postedThrice('/audit-streams', '/audit-streams', {
      kind: 'https',
      label: 'Twice',
      url: 'https://localhost:9443/audit-twice',
    });
    expect(again.location).toBe(`/brands/${brand.id}/audit-streams?repeat=created`);
    const page = (await http.get(again.location!)).body;
    expect(page).toContain('This stream was already connected');
    expect(page.split('>Twice<').length - 1).toBe(1);
  });
});

describe('a rotate form posted twice', () => {
  // Before: the second post of a receiver's rotate was refused (422: a rotation is pending),
  // and a SCIM token still working through its overlap was rotated again (a second replacement);
  // either way the browser showed that answer and the first post's one-time page was lost.
  it("rotates a receiver's signing secret once, and the repeat shows the first post's new secret", async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInHttp(cs, owner.email);
    const list = `/brands/${brand.id}/receivers`;
    const added = await http.post(list, {
      ...hiddenFields((await http.get(list)).body, list),
      url: 'https://localhost:9443/rotated-twice',
      label: 'Rotated twice',
      events: 'payout.paid',
    });
    expect(added.status).toBe(303);
    const receiverId = /\/receivers\/(rcv_[A-Za-z0-9]+)\//.exec(added.location!)?.[1];
    const base = `${list}/${receiverId}`;
    const action = `${base}/rotate`;
    const form = hiddenFields((await http.get(`${base}/settings`)).body, action);

    const [a, b] = await Promise.all([http.post(action, form), http.post(action, form)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(b.location).toMatch(new RegExp(`^${base}/rotated/`));
    expect(a.location).toBe(b.location);
    const shown = await http.get(b.location!);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatch(/whsec_[A-Za-z0-9_-]+/);

    // Back and resubmit, after the secret was shown: nothing rotated, and the tab says why.
    const again = await http.post(action, form);
    expect(again.status).toBe(303);
    expect(again.location).toBe(`${base}/settings?repeat=rotated`);
    const settings = (await http.get(again.location!)).body;
    expect(settings).toContain('This secret was already rotated from this form');
    expect(settings).toContain('A rotation is pending');
  });

  it("rotates a SCIM token once, and the repeat shows the first post's replacement", async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInHttp(cs, owner.email);
    const page = `/brands/${brand.id}/provisioning`;
    const made = await http.post(`${page}/tokens`, {
      ...hiddenFields((await http.get(page)).body, `${page}/tokens`),
      name: 'Okta',
    });
    expect(made.status).toBe(303);
    const listed = (await http.get(page)).body;
    const tokenId = /\/provisioning\/tokens\/(sct_[A-Za-z0-9]+)\/rotate/.exec(listed)?.[1];
    const action = `${page}/tokens/${tokenId}/rotate`;
    // the old token keeps working 24 hours, so records would rotate it again
    const form = { ...hiddenFields(listed, action), old_token_expires_in: '24h' };
    const tokenRows = async () => (await http.get(page)).body.split('<td>Okta</td>').length - 1;

    const [a, b] = await Promise.all([http.post(action, form), http.post(action, form)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(b.location).toMatch(new RegExp(`^${page}/tokens/created/`));
    expect(a.location).toBe(b.location);
    const shown = await http.get(b.location!);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatch(/scim_[A-Za-z0-9_-]+/);
    // the old token counting down and one replacement: not two
    expect(await tokenRows()).toBe(2);

    const again = await http.post(action, form);
    expect(again.status).toBe(303);
    expect(again.location).toBe(`${page}?repeat=rotated`);
    expect((await http.get(again.location!)).body).toContain(
      'This token was already rotated from this form',
    );
    expect(await tokenRows()).toBe(2);
  });
});

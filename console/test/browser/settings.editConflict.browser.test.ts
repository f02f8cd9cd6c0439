// The refusal of a save over another owner's change (forms/shownFields.ts: 409, edit_conflict),
// as a person sees it in a real browser (Debian's Chromium via playwright-core). The five settings
// forms that carry what they showed (a receiver's URL, label and events; an audit stream's
// settings; Provisioning's settings; the Single sign-on connection; a key's allowed networks) were
// only ever checked as fetched HTML (the *.twoOwners* integration tests). Here owner A opens the
// form in the browser; owner B, on a console client of their own, saves the same field from the
// same page; then A edits that field and saves. A sees the page again with status 409: a message
// naming the field and its value now and linking to it (the field marked invalid and described
// by the message), A's own input still in the form, no stack trace nor raw
// JSON; the stored value is still B's; and A's second save (as the message says to do) is
// taken. B also changes a field A left alone (where the form has more than one): the refusal
// shows it as it is now, not as A's page had it, so that A's second save does not put it back
// (before: the audit stream's and Provisioning's forms showed the stored values, A's input lost
// under "Your values are kept in the form"; the receiver's and Single sign-on's kept A's whole
// page, whose second save undid B's events, and turned single sign-on B had disabled back on).
// One stack, one brand, one browser context; axe-core checks each refusal; screenshots
// (edit-conflict-*) go where browserKit says.
import type { Browser, Page, Response } from 'playwright-core';
import { EVENT_TYPES } from '@brand/shared/enums';
import { randomHex, startTestIdp, type TestIdp } from '@brand/testkit';
import { formAsPosted, type ConsoleHttp } from '../browserlessClient';
import { signInHttp, startReceiverStack, type ReceiverStack } from '../consoleActors';
import { idpClient } from '../ssoActors';
import { LAPTOP, expectAccessible, launchChromium, screenshot, signIn } from './browserKit';

let rs: ReceiverStack;
let idp: TestIdp;
let browser: Browser;
/** Owner A, in the browser. */
let page: Page;
/** Owner B, on a console client of their own. */
let other: ConsoleHttp;
let brandId: string;
let ownerA: string;
const client = { client_id: 'edit-conflict', client_secret: `secret-${randomHex(16)}` };

beforeAll(async () => {
  rs = await startReceiverStack();
  idp = await startTestIdp({
    clients: [{ ...idpClient(rs.cs, 'edit-conflict'), ...client }],
  });
  browser = await launchChromium();
  const { brand, owner } = await rs.cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'enterprise',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  brandId = brand.id;
  ownerA = owner.email;
  const second = await rs.cs.stack.admin.addMember({
    brandId,
    email: `second-${randomHex(4)}@brand.test`,
    role: 'owner',
  });
  other = await signInHttp(rs.cs, second.email);
  page = await signIn(browser, rs.cs, ownerA, { viewport: LAPTOP });
  page.on('dialog', (d) => {
    throw new Error(`a page opened a dialog: ${d.message()}`);
  });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await rs?.close();
});
jest.setTimeout(240_000);

/**
 * The form posting to `action` on `path` as owner B's browser would post it untouched (formAsPosted), with `change` over it; posted
 * as B. B's save must be taken (303).
 */
async function savedByOther(
  path: string,
  action: string,
  change: Record<string, string | string[] | undefined>,
): Promise<void> {
  const fields = formAsPosted((await other.get(path)).body, action);
  for (const [name, value] of Object.entries(change)) {
    if (value === undefined) delete fields[name];
    else fields[name] = value;
  }
  const saved = await other.post(action, fields);
  if (saved.status !== 303) {
    throw new Error(`owner B's save to ${action} answered ${saved.status}: ${saved.body}`);
  }
}

/** Presses `button` on A's page; the answer to the form's POST. */
async function submit(button: string): Promise<Response> {
  const answer = page.waitForResponse((r) => r.request().method() === 'POST');
  await page.getByRole('button', { name: button, exact: true }).click();
  const response = await answer;
  await page.waitForLoadState();
  return response;
}

/**
 * What A sees after a refused save: status 409 (edit_conflict), the page's own heading, one alert
 * naming the field and its value now, saying what to do and linking to the field, which alone
 * is marked invalid and described by the alert; nothing of a stack trace, raw JSON or an error
 * code. Checked for accessibility and kept as `edit-conflict-<name>`.
 */
async function expectRefused(
  response: Response,
  heading: string,
  message: string,
  name: string,
  field: { label: string; id: string },
): Promise<void> {
  expect(response.status()).toBe(409);
  expect(await response.headerValue('x-console-error')).toBe('edit_conflict');
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  const alert = page.getByRole('alert');
  await expect(alert.count()).resolves.toBe(1);
  await expect(alert.innerText()).resolves.toBe(
    `Not saved: someone else changed the ${message} since you opened this page. The form keeps your changes, with everything else as it is now: check it and save again.\n\nThe field: ${field.label}.`,
  );
  await expect(alert.isVisible()).resolves.toBe(true);
  // the alert links to the field it names; that field, and no other, is marked and described by it
  const link = alert.getByRole('link', { name: field.label, exact: true });
  await expect(link.getAttribute('href')).resolves.toBe(`#${field.id}`);
  const invalid = page.locator('[aria-invalid="true"]');
  await expect(invalid.count()).resolves.toBe(1);
  await expect(invalid.getAttribute('id')).resolves.toBe(field.id);
  const describedBy = (await invalid.getAttribute('aria-describedby')) ?? '';
  const alertId = await alert.getAttribute('id');
  expect(alertId).toBeTruthy();
  expect(describedBy.split(' ')).toContain(alertId);
  await link.click();
  await expect(page.evaluate(() => location.hash)).resolves.toBe(`#${field.id}`);
  await expect(page.locator(`#${field.id}`).isVisible()).resolves.toBe(true);
  const text = await page.locator('body').innerText();
  expect(text).not.toMatch(/\bat \S+ \(?\S+:\d+:\d+\)?/); // a stack frame
  expect(text).not.toMatch(/[{[]\s*"[a-z_]+"\s*:/); // raw JSON
  expect(text).not.toMatch(/edit_conflict|Internal Server Error|FailedPrecondition/);
  await expectAccessible(page);
  await screenshot(page, `edit-conflict-${name}`);
}

const query = async <T>(sql: string, id: string): Promise<T> =>
  (await rs.cs.stack.db.pool.query(sql, [id])).rows[0] as T;

it("a receiver's label", async () => {
  const r = await rs.receiverFor(brandId, { label: 'Order system' });
  const settings = `/brands/${brandId}/receivers/${r.receiver.id}/settings`;
  const action = `/brands/${brandId}/receivers/${r.receiver.id}/edit`;
  await page.goto(`${rs.cs.url}${settings}`);
  const label = page.getByLabel('Label', { exact: true });
  await expect(label.inputValue()).resolves.toBe('Order system');

  // B renames it and selects one more event; A renames it too
  const theirEvents = ['payout.paid', 'submission.approved', 'submission.rejected'];
  await savedByOther(settings, action, { label: 'Order system (B)', events: theirEvents });
  await label.fill('Order system (A)');
  const refused = await submit('Save changes');

  await expectRefused(refused, 'Order system (B)', 'label (now “Order system (B)”)', 'receiver', {
    label: 'Label',
    id: 'edit-label',
  });
  // A's label kept; the events A left alone as they are now (B's), not as A's page showed them
  await expect(label.inputValue()).resolves.toBe('Order system (A)');
  await expect(page.getByLabel('submission.rejected').isChecked()).resolves.toBe(true);
  const stored = async () => {
    const { receiver } = await rs.admin.call('getReceiver', { receiver_id: r.receiver.id });
    return {
      label: receiver!.label,
      events: receiver!.events.map((e) => EVENT_TYPES.fromProto(e)).sort(),
    };
  };
  await expect(stored()).resolves.toEqual({ label: 'Order system (B)', events: theirEvents });

  // saved again, as the message says: A's label stands, and B's events still
  await submit('Save changes');
  await page.getByRole('status').filter({ hasText: 'Changes saved.' }).waitFor();
  await expect(stored()).resolves.toEqual({ label: 'Order system (A)', events: theirEvents });
});

it("an audit stream's name", async () => {
  const r = await rs.receiverFor(brandId, { label: 'Stream target' });
  const list = `/brands/${brandId}/audit-streams`;
  await savedByOther(list, list, { kind: 'https', label: 'SIEM', url: r.receiver.url });
  const streamId = /aus_[A-Za-z0-9]+/.exec((await other.get(list)).body)![0];
  const streamPath = `${list}/${streamId}`;
  await page.goto(`${rs.cs.url}${streamPath}`);
  const name = page.getByLabel('Name', { exact: true });
  await expect(name.inputValue()).resolves.toBe('SIEM');

  // B renames it and moves it; A renames it too
  const theirUrl = `${r.receiver.url}?to=b`;
  await savedByOther(streamPath, streamPath, { label: 'SIEM (B)', url: theirUrl });
  await name.fill('SIEM (A)');
  const refused = await submit('Save');

  await expectRefused(refused, 'SIEM (B)', 'name (now “SIEM (B)”)', 'audit-stream', {
    label: 'Name',
    id: 'edit-label',
  });
  await expect(name.inputValue()).resolves.toBe('SIEM (A)');
  await expect(page.getByLabel('URL', { exact: true }).inputValue()).resolves.toBe(theirUrl);
  const stored = () =>
    query<{ label: string; url: string }>(
      'select label, url from receivers where id = $1',
      streamId,
    );
  await expect(stored()).resolves.toEqual({ label: 'SIEM (B)', url: theirUrl });

  await submit('Save');
  await page.getByRole('status').filter({ hasText: 'Changes saved.' }).waitFor();
  await expect(stored()).resolves.toEqual({ label: 'SIEM (A)', url: theirUrl });
});

it("Provisioning's groups claim", async () => {
  const path = `/brands/${brandId}/provisioning`;
  await page.goto(`${rs.cs.url}${path}`);
  const claim = page.getByLabel('The ID token claim that carries the groups');
  await expect(claim.inputValue()).resolves.toBe('groups');

  // B changes the claim and turns "revoke the keys" on; A changes the claim too
  await savedByOther(path, `${path}/settings`, {
    jit_groups_claim: 'teams',
    revoke_keys_on_deprovision: 'on',
  });
  await claim.fill('roles');
  const refused = await submit('Save');

  await expectRefused(refused, 'Provisioning', 'groups claim (now “teams”)', 'provisioning', {
    label: 'The ID token claim that carries the groups',
    id: 'groups-claim',
  });
  await expect(claim.inputValue()).resolves.toBe('roles');
  const revoke = page.getByLabel(/Revoke the API keys a deprovisioned person created/);
  await expect(revoke.isChecked()).resolves.toBe(true);
  const stored = () =>
    query<{ jit_groups_claim: string; revoke_keys_on_deprovision: boolean }>(
      'select jit_groups_claim, revoke_keys_on_deprovision from records.brands where id = $1',
      brandId,
    );
  await expect(stored()).resolves.toEqual({
    jit_groups_claim: 'teams',
    revoke_keys_on_deprovision: true,
  });

  await submit('Save');
  await page
    .getByRole('status')
    .filter({ hasText: /^Saved\.$/ })
    .waitFor();
  await expect(stored()).resolves.toEqual({
    jit_groups_claim: 'roles',
    revoke_keys_on_deprovision: true,
  });
});

it("Single sign-on's allowed email domains", async () => {
  const path = `/brands/${brandId}/sso`;
  const domain = `demo-${randomHex(3)}.test`;
  await savedByOther(path, path, {
    issuer: idp.issuer,
    client_id: client.client_id,
    client_secret: client.client_secret,
    allowed_domains: domain,
    enabled: 'on',
  });
  await page.goto(`${rs.cs.url}${path}`);
  const domains = page.getByLabel('Allowed email domains');
  await expect(domains.inputValue()).resolves.toBe(domain);

  // B adds a domain and turns single sign-on off; A adds another domain
  await savedByOther(path, path, { allowed_domains: `${domain}\nb-${domain}`, enabled: undefined });
  await domains.fill(`${domain}\na-${domain}`);
  const refused = await submit('Save changes');

  await expectRefused(
    refused,
    'Single sign-on',
    `allowed email domains (now “b-${domain}, ${domain}”)`,
    'sso',
    { label: 'Allowed email domains', id: 'sso-domains' },
  );
  await expect(domains.inputValue()).resolves.toBe(`${domain}\na-${domain}`);
  // "off", as B left it: a second save must not turn it back on
  await expect(page.getByLabel('Members may sign in with it').isChecked()).resolves.toBe(false);
  const stored = () =>
    query<{ allowed_domains: string[]; enabled: boolean }>(
      'select allowed_domains, enabled from records.sso_connections where brand_id = $1',
      brandId,
    );
  await expect(stored()).resolves.toEqual({
    allowed_domains: [domain, `b-${domain}`],
    enabled: false,
  });

  await submit('Save changes');
  await page
    .getByRole('status')
    .filter({ hasText: /^Saved\. Members at/ })
    .waitFor();
  await expect(stored()).resolves.toEqual({
    allowed_domains: [domain, `a-${domain}`],
    enabled: false,
  });
});

it("a key's allowed networks", async () => {
  const { key } = await rs.cs.stack.admin.createKey({
    brandId,
    actorEmail: ownerA,
    name: 'Warehouse sync',
    allowedNetworks: ['203.0.113.0/24', '198.51.100.0/24'],
  });
  const path = `/brands/${brandId}/keys/${key.id}/networks`;
  await page.goto(`${rs.cs.url}${path}`);
  const networks = page.getByRole('textbox', { name: /^Allowed networks/ });
  await expect(networks.inputValue()).resolves.toBe('203.0.113.0/24\n198.51.100.0/24');

  // B tightens the list; A, from the page opened before, adds a network to the old one
  await savedByOther(path, path, { allowed_networks: '203.0.113.0/24' });
  await networks.fill('203.0.113.0/24\n198.51.100.0/24\n192.0.2.0/24');
  const refused = await submit('Save networks');

  await expectRefused(
    refused,
    'Allowed networks of “Warehouse sync”',
    'allowed networks (now “203.0.113.0/24”)',
    'key-networks',
    { label: 'Allowed networks', id: 'key-networks' },
  );
  await expect(networks.inputValue()).resolves.toBe(
    '203.0.113.0/24\n198.51.100.0/24\n192.0.2.0/24',
  );
  const stored = () =>
    query<{ allowed_networks: string[] }>(
      'select allowed_networks from records.api_keys where id = $1',
      key.id,
    );
  expect((await stored()).allowed_networks).toEqual(['203.0.113.0/24']);

  await submit('Save networks');
  await page.waitForURL(/\/keys\?networks=/);
  expect((await stored()).allowed_networks).toEqual([
    '203.0.113.0/24',
    '198.51.100.0/24',
    '192.0.2.0/24',
  ]);
});

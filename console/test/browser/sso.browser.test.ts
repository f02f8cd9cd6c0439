// Issue 37 item 1 in a real browser (Debian's Chromium via playwright-core) against a real
// OpenID provider (oidc-provider, packages/testkit/src/testIdp.ts): an owner signed in by link
// connects the brand's identity provider on its Single sign-on page, signs out, and signs in
// again through the provider's own login form; then requires single sign-on for the brand, after
// which an emailed link no longer opens it. Before anyone can sign in, the owner proves the
// domain (issue 42): the page shows it pending with the TXT record to publish, "Verify now"
// before publishing says why it failed, and after publishing (on the test's real DNS server)
// it is verified. Signed in by SSO, "Your passkeys" says so and offers nothing of the address's
// passkeys, "Single sign-on" is in the owner's navigation, and the 403 of a link session links
// to the brand's single sign-on (issue 42). axe-core checks each console page, and each signed-in
// one has the header of every page (who is signed in, one Sign out); screenshots go to
// docs/console/ (sso, sso-domain-pending, sso-domain-failed, sign-in-sso, sso-continue,
// sign-in-policy-sso, passkeys-sso, sign-in-method-required-sso), the secret masked.
import type { Browser } from 'playwright-core';
import { randomHex, startTestIdp, type TestIdp } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { providerSetLongAgo } from '../ssoActors';
import {
  expectAccessible,
  expectSignedInHeader,
  launchChromium,
  screenshot,
  screenshotOf,
  signIn,
} from './browserKit';

let cs: ConsoleStack;
let idp: TestIdp;
let browser: Browser;
const client = { client_id: 'brand-records-console', client_secret: `secret-${randomHex(16)}` };

beforeAll(async () => {
  // As the local stack: the console on localhost, the provider on 127.0.0.1.
  cs = await startConsoleStack({ publicHost: 'localhost' });
  idp = await startTestIdp({
    clients: [{ ...client, redirect_uris: [`${cs.url}/sign-in/sso/callback`] }],
  });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await cs?.close();
});

it('connects the provider, signs in through it, and requires it for the brand', async () => {
  const domain = `demo-${randomHex(3)}.test`;
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'pro',
    verified: true,
    ownerEmail: `owner@${domain}`,
  });
  idp.addUser({ email: owner.email, password: 'correct horse' });

  const page = await signIn(browser, cs, owner.email);
  await page.goto(`${cs.url}/brands/${brand.id}/sso`);
  await page.getByRole('heading', { name: 'Single sign-on', level: 1 }).waitFor();
  await page.getByLabel('Issuer URL').fill(idp.issuer);
  await page.getByLabel('Client id').fill(client.client_id);
  await page.getByLabel('Client secret').fill(client.client_secret);
  await page.getByLabel('Allowed email domains').fill(domain);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByText('Saved. Members at the verified domains').waitFor();
  await expect(page.content()).resolves.not.toContain(client.client_secret);

  // The domain is pending: its TXT record is on the page, and nobody can sign in with it yet.
  const row = page.locator(`tr#domain-${domain.replaceAll('.', '\\.')}`);
  await row.getByText('Pending: publish the record, then verify').waitFor();
  const recordName = await row.locator('code').nth(0).textContent();
  const recordValue = await row.locator('code').nth(1).textContent();
  expect(recordName).toBe(`_brand-records-verification.${domain}`);
  expect(recordValue).toMatch(/^brand-records-verification=[A-Za-z0-9]{32}$/);
  await expectSignedInHeader(page, owner.email);
  await expectAccessible(page);
  await screenshot(page, 'sso-domain-pending');

  // Verify now before the record is published: failed, saying why.
  await row.getByRole('button', { name: `Verify ${domain} now` }).click();
  await page.getByText('Checked: the domain is not verified yet').waitFor();
  await row.getByText(/No TXT record at _brand-records-verification\./).waitFor();
  await expectAccessible(page);
  await screenshotOf(
    page.locator('section[aria-labelledby="sso-domains-title"]'),
    'sso-domain-failed',
  );

  // Published in the DNS records asks: verified.
  cs.dns.publishTxt(recordName!, [recordValue!]);
  await row.getByRole('button', { name: `Verify ${domain} now` }).click();
  await page.getByText('Domain verified: members at it can sign in').waitFor();
  await row.getByText(/^Verified \d{4}-/).waitFor();
  await expectSignedInHeader(page, owner.email);
  await expectAccessible(page);
  await screenshot(page, 'sso');

  // Signed out, the sign-in page offers single sign-on; the address finds the brand.
  await page
    .getByRole('link', { name: 'Your brands' })
    .or(page.getByRole('link', { name: 'Switch brand' }))
    .first()
    .click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.waitForURL(/\/sign-in\?signed_out=1$/);
  await page.getByLabel('Your work email').fill(owner.email);
  await expectAccessible(page);
  await screenshot(page, 'sign-in-sso');
  await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
  await page.getByRole('heading', { name: 'Continue to your identity provider' }).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'sso-continue');
  await page.getByRole('link', { name: /^Continue to 127\.0\.0\.1:/ }).click();

  // The provider's own login form (prefilled with the address as a login hint).
  await page.getByRole('heading', { name: 'Local identity provider' }).waitFor();
  await expect(page.getByLabel('Email').inputValue()).resolves.toBe(owner.email);
  await page.getByLabel('Password').fill('correct horse');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(new RegExp(`^${cs.url}/brands/${brand.id}$`));

  await page.goto(`${cs.url}/sessions`);
  await expect(page.locator('tbody tr').first().textContent()).resolves.toMatch(
    /this session[\s\S]*by single sign-on/,
  );

  // "Your passkeys" tells how this session was opened, and that it cannot act on the address's
  // passkeys (issue 42): no list, no form to add one.
  await page.getByRole('link', { name: 'Passkeys', exact: true }).click();
  await page
    .getByText('You signed in with Demo Brand’s single sign-on.', { exact: false })
    .waitFor();
  await expect(page.locator('form[data-passkey="register"]').count()).resolves.toBe(0);
  await expectSignedInHeader(page, owner.email);
  await expectAccessible(page);
  await screenshot(page, 'passkeys-sso');

  // An emailed-link session of the owner, opened before SSO is required: its passkeys page says
  // so truthfully.
  const other = await signIn(browser, cs, owner.email);
  await other.goto(`${cs.url}/passkeys`);
  await other.getByText('This session was opened by an emailed link.').waitFor();

  // From the SSO session the owner requires single sign-on for the brand (a day after the
  // provider was set, issue 59: the test stands for an owner who waited); "Single sign-on" is
  // in the navigation for owners.
  await providerSetLongAgo(cs, brand.id);
  await page.goto(`${cs.url}/brands/${brand.id}/members`);
  const nav = page.getByRole('navigation', { name: 'Sections' });
  await nav.getByRole('link', { name: 'Single sign-on' }).waitFor();
  await page.getByLabel(/Single sign-on only/).check();
  await page.getByRole('button', { name: 'Save how members sign in' }).click();
  await page.getByText('Saved: how members sign in to this brand.').waitFor();
  await expectSignedInHeader(page, owner.email);
  await expectAccessible(page);
  await screenshotOf(
    page.locator('section[aria-labelledby="sign-in-policy"]'),
    'sign-in-policy-sso',
  );
  await nav.getByRole('link', { name: 'Single sign-on' }).click();
  await page.getByRole('heading', { name: 'Single sign-on', level: 1 }).waitFor();
  await expect(
    nav.getByRole('link', { name: 'Single sign-on' }).getAttribute('aria-current'),
  ).resolves.toBe('page');

  // The emailed link's session no longer opens the brand; the 403 links to its single sign-on.
  await other.goto(`${cs.url}/brands/${brand.id}/keys`);
  await other.getByRole('heading', { name: 'Not allowed' }).waitFor();
  await expect(other.locator('main').textContent()).resolves.toContain('requires single sign-on');
  await expectSignedInHeader(other, owner.email);
  await expectAccessible(other);
  await screenshot(other, 'sign-in-method-required-sso');
  await other.getByRole('link', { name: 'Sign in with single sign-on' }).click();
  await other.waitForURL(`${cs.url}/sign-in/sso?brand=${brand.id}`);
  await other.getByRole('button', { name: 'Sign in with single sign-on' }).waitFor();
});

it('sets up provisioning: a SCIM token shown once, a group mapped, just in time on', async () => {
  const domain = `prov-${randomHex(3)}.test`;
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Provisioned Brand',
    tier: 'pro',
    verified: true,
    ownerEmail: `owner@${domain}`,
  });
  const page = await signIn(browser, cs, owner.email);
  await page.goto(`${cs.url}/brands/${brand.id}/provisioning`);
  await page.getByRole('heading', { name: 'Provisioning', level: 1 }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Sections' });
  await expect(
    nav.getByRole('link', { name: 'Provisioning' }).getAttribute('aria-current'),
  ).resolves.toBe('page');
  await page.getByLabel('New token’s name (the provider it is for)').fill('Okta');
  await page.getByRole('button', { name: 'Create SCIM token' }).click();
  const secret = page.locator('#new-secret');
  await expect(secret.textContent()).resolves.toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
  await expectSignedInHeader(page, owner.email);
  await expectAccessible(page);
  await screenshot(page, 'scim-token', [secret]);
  await page.getByRole('link', { name: 'Back to Provisioning' }).click();
  await page.getByLabel('Group', { exact: true }).fill('Brand Records Admins');
  await page.getByLabel('Role', { exact: true }).selectOption('admin');
  await page.getByRole('button', { name: 'Map the group' }).click();
  await page.getByText('Saved. Every provisioned member’s role follows it now.').waitFor();
  await page.getByLabel(/Add a person at a verified domain/).check();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText('Saved.', { exact: true }).waitFor();
  await expect(page.getByLabel(/Add a person at a verified domain/).isChecked()).resolves.toBe(
    true,
  );
  await expect(page.locator('main').textContent()).resolves.toContain(`${cs.url}/scim/v2`);
  // An owner leaving ends the tokens they made (a review of 2026-11-30): the page says so.
  await page.getByText(/ends when the owner who made or last rotated it leaves/).waitFor();
  await expectSignedInHeader(page, owner.email);
  await expectAccessible(page);
  await screenshot(page, 'provisioning');
});

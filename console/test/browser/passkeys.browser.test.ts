// In a real browser (Debian's Chromium via playwright-core) with Chromium's own virtual
// authenticator (DevTools protocol, WebAuthn domain: CTAP2, internal transport, resident keys, user
// verification): a member signed in by link adds a passkey on "Your passkeys" through
// @simplewebauthn/browser served by the console, signs out, and signs in again with the passkey
// alone; the owner then requires a passkey or SSO for the brand. axe-core checks each page;
// screenshots go to docs/console/ (passkeys, sign-in-passkey, sign-in-policy).
import type { Browser, Page } from 'playwright-core';
import { randomHex } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { expectAccessible, launchChromium, screenshot, screenshotOf, signIn } from './browserKit';

let cs: ConsoleStack;
let browser: Browser;

beforeAll(async () => {
  // WebAuthn needs a domain name: browsers refuse an IP address as the relying party.
  cs = await startConsoleStack({ publicHost: 'localhost' });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await cs?.close();
});

/** Gives the page's browser context an authenticator that holds passkeys and verifies its user. */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
}

it('adds a passkey, signs in with it alone, and requires passkeys for the brand', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'pro',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const page = await signIn(browser, cs, owner.email);
  await addVirtualAuthenticator(page);

  await page.getByRole('link', { name: 'Passkeys' }).click();
  await page.getByRole('heading', { name: 'Your passkeys' }).waitFor();
  await page.getByLabel('Name').fill('Work laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByText('Passkey added.').waitFor();
  await expect(page.locator('tbody').textContent()).resolves.toContain('Work laptop');
  // a session opened by an emailed link may add the first passkey only, and remove none
  await expect(page.getByRole('button', { name: /^Remove/ }).count()).resolves.toBe(0);
  await expect(page.getByRole('button', { name: 'Add a passkey' }).count()).resolves.toBe(0);
  await expectAccessible(page);
  await screenshot(page, 'passkeys');

  // Signed out, the same browser (and so the same authenticator) signs in with the passkey.
  await page.getByRole('link', { name: 'Your brands' }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.waitForURL(/\/sign-in\?signed_out=1$/);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'sign-in-passkey');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL(new RegExp(`/brands/${brand.id}$`));

  await page.goto(`${cs.url}/sessions`);
  await expect(page.locator('tbody tr').first().textContent()).resolves.toMatch(
    /this session[\s\S]*by passkey/,
  );
  await page.goto(`${cs.url}/passkeys`);
  await expect(page.locator('tbody').textContent()).resolves.not.toContain('Never');
  // signed in with it, the owner may remove it or add another
  await page.getByRole('button', { name: 'Remove the passkey Work laptop' }).waitFor();
  await page.getByRole('button', { name: 'Add a passkey' }).waitFor();

  // From this passkey session the owner requires a passkey or SSO for the brand.
  await page.goto(`${cs.url}/brands/${brand.id}/members`);
  await page.getByLabel(/A passkey or single sign-on:/).check();
  await page.getByRole('button', { name: 'Save how members sign in' }).click();
  await page.getByText('Saved: how members sign in to this brand.').waitFor();
  await expectAccessible(page);
  await screenshotOf(page.locator('section[aria-labelledby="sign-in-policy"]'), 'sign-in-policy');

  // An emailed link no longer opens the brand.
  const other = await signIn(browser, cs, owner.email);
  await other.goto(`${cs.url}/brands/${brand.id}/keys`);
  await other.getByRole('heading', { name: 'Not allowed' }).waitFor();
  await expect(other.locator('main').textContent()).resolves.toContain(
    'requires signing in with a passkey',
  );
  await expectAccessible(other);
});

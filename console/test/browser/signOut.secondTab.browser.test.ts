// In a real browser (the outside probe of 2026-11-30): signing out in a second tab, after the
// first signed out, lands on "You are signed out."; a form sent from a tab whose session ended
// is refused with a Sign in button that leads to the form; the "check your email" page says
// links are spaced. axe-core checks each page; screenshots go to docs/console/ (not-signed-in,
// check-email).
import type { Browser } from 'playwright-core';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { brandWithOwner } from '../consoleActors';
import { expectAccessible, launchChromium, screenshot, signIn } from './browserKit';

let cs: ConsoleStack;
let browser: Browser;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await cs?.close();
});

it('signs out in a second tab, and a stale form leads to sign in', async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const first = await signIn(browser, cs, owner.email);
  const second = await first.context().newPage();
  await second.goto(`${cs.url}/brands/${brand.id}/members`);
  await first.goto(`${cs.url}/brands/${brand.id}/members`);

  await first.getByRole('button', { name: 'Sign out', exact: true }).click();
  await first.getByText('You are signed out.').waitFor();
  await second.getByRole('button', { name: 'Sign out', exact: true }).click();
  await second.getByText('You are signed out.').waitFor();

  // A tab left open on a form, its session ended meanwhile.
  const again = await signIn(browser, cs, owner.email);
  await again.goto(`${cs.url}/brands/${brand.id}/members`);
  const stale = await again.context().newPage();
  await stale.goto(`${cs.url}/brands/${brand.id}/members`);
  await again.getByRole('button', { name: 'Sign out', exact: true }).click();
  await again.getByText('You are signed out.').waitFor();
  await stale.getByLabel('Email address').fill('someone@brand.test');
  await stale.getByRole('button', { name: 'Invite by email' }).click();
  await stale.getByText('You are not signed in (or your session ended)').waitFor();
  await expectAccessible(stale);
  await screenshot(stale, 'not-signed-in');
  await stale.getByRole('link', { name: 'Sign in' }).click();
  await stale.getByRole('heading', { name: 'Sign in to the Developers area' }).waitFor();

  await stale.getByLabel('Email address').fill(owner.email);
  await stale.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await stale.getByText('at most one link a minute').waitFor();
  await expectAccessible(stale);
  await screenshot(stale, 'check-email');
});

import { tmpdir } from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import {
  chromium,
  type Browser,
  type BrowserContextOptions,
  type Locator,
  type Page,
} from 'playwright-core';
import { REPO_ROOT } from '@brand/testkit';
import type { ConsoleStack } from '../consoleStack';

/** Debian's Chromium (scripts/test.sh installs it when missing); no browser download. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Chromium headless with a fresh temporary profile (playwright makes one per launch), kept off
 * every network but loopback's (the flags stop its background calls).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * The header every signed-in page carries: it names `email`, once, and holds the page's one
 * Sign out button (a brand's page, a person's own, a refusal and a 404 alike).
 */
export async function expectSignedInHeader(page: Page, email: string): Promise<void> {
  const header = page.locator('header.top');
  await expect(header.textContent()).resolves.toContain(email);
  const signOut = { name: 'Sign out', exact: true };
  await expect(header.getByRole('button', signOut).count()).resolves.toBe(1);
  await expect(page.getByRole('button', signOut).count()).resolves.toBe(1);
}

/**
 * Runs axe-core in the page (injected over the DevTools protocol, so the strict CSP does not
 * stop it) and fails on any serious or critical violation, naming each.
 *
 * Legacy mode: the console has no frames (its CSP says frame-ancestors 'none' and it embeds
 * none), so axe runs in the page itself; the default opens a blank page for every check to
 * gather frames' results, a new renderer each time (2.1-2.7 s a check against 0.9-1.6 s, and
 * most of the browser's CPU in a run). Only violations are gathered: passes are not read here.
 */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page })
    .setLegacyMode()
    .options({ resultTypes: ['violations'] })
    .analyze();
  const bad = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect({ url: page.url(), violations: bad }).toEqual({ url: page.url(), violations: [] });
}

/**
 * Nothing on the page is wider than the screen: neither the document nor the page beside the side
 * bar (which scrolls a too-wide table inside itself rather than the page) scrolls sideways. Every
 * screenshot is checked so, at its own width and at each narrower of 1024, 768 and 390 px: a table
 * must fit a laptop's screen, its columns wrapping instead, and on a tablet or a phone scroll
 * inside its own box or stack as cards.
 */
async function expectNothingScrollsSideways(page: Page): Promise<void> {
  const widths = await page.evaluate(() => {
    const main = document.querySelector('main');
    return {
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      main: main ? main.scrollWidth - main.clientWidth : 0,
    };
  });
  expect({ url: page.url(), widerBy: widths }).toEqual({
    url: page.url(),
    widerBy: { page: 0, main: 0 },
  });
}

/**
 * The screenshots of docs/console.md, secrets masked: into docs/console/ with
 * CONSOLE_SCREENSHOTS=1 (`npm run console:screenshots`), else into a temporary directory, so
 * that a test run leaves the committed images (and the work tree) alone.
 */
const SHOTS_DIR =
  process.env.CONSOLE_SCREENSHOTS === '1'
    ? path.join(REPO_ROOT, 'docs/console')
    : path.join(tmpdir(), 'console-screenshots');

/**
 * How long a screenshot may take. Playwright's default, 30 s, was passed once in a fresh-clone
 * run at load 5-11 (receivers.backlogAndLog, 2026-11-30: two browsers drawing full, masked pages
 * on two shared cores); the file alone took 19-36 s in all. The test's own 240 s still bounds it.
 */
const SCREENSHOT_MS = 120_000;

export async function screenshot(page: Page, name: string, mask: Locator[] = []): Promise<void> {
  await expectNothingScrollsSideways(page);
  // and at a small laptop's, a tablet's and a phone's width too: a wide table scrolls inside its
  // own box there (views/dataTable.tsx), a stacked one turns to cards before it would overflow
  const size = page.viewportSize();
  const narrower = NARROWER_SCREENS.filter((s) => size && s.width < size.width);
  for (const screen of narrower) {
    await page.setViewportSize(screen);
    await expectNothingScrollsSideways(page);
  }
  if (size && narrower.length > 0) await page.setViewportSize(size);
  await page.screenshot({
    path: path.join(SHOTS_DIR, `${name}.png`),
    fullPage: true,
    mask,
    maskColor: '#5a5f66',
    timeout: SCREENSHOT_MS,
  });
}

/** One part of a page (a section, a chart), for the docs where the whole page would be too tall. */
export async function screenshotOf(
  part: Locator,
  name: string,
  mask: Locator[] = [],
): Promise<void> {
  await part.screenshot({
    path: path.join(SHOTS_DIR, `${name}.png`),
    mask,
    maskColor: '#5a5f66',
    timeout: SCREENSHOT_MS,
  });
}

/**
 * The colour of one pixel of the whole page as a full-page screenshot draws it, `fromFoot` CSS
 * pixels above the page's foot. The screenshot is decoded by Chromium itself, in a blank page of
 * the same browser (the console's CSP admits no data: image), so no image library is needed.
 */
export async function pixelNearFoot(page: Page, x: number, fromFoot: number): Promise<number[]> {
  const png = await page.screenshot({ fullPage: true });
  const blank = await page.context().newPage();
  try {
    return await blank.evaluate(
      async ({ data, x, fromFoot }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d');
        if (!context) throw new Error('no 2d canvas');
        context.drawImage(image, 0, 0);
        return Array.from(context.getImageData(x, image.height - fromFoot, 1, 1).data.slice(0, 3));
      },
      { data: png.toString('base64'), x, fromFoot },
    );
  } finally {
    await blank.close();
  }
}

/** A phone's width and a laptop's screen: the widths every page is looked at (issue 62). */
const PHONE = { width: 390, height: 844 };
export const LAPTOP = { width: 1280, height: 900 };
/** The widths between, where a page's layout changes (the side bar, stacked tables). */
const NARROWER_SCREENS = [{ width: 1024, height: 768 }, { width: 768, height: 1024 }, PHONE];

/**
 * The page as it stands, at a phone's width: checked for accessibility and kept as
 * `<name>-390`; then back to a laptop's screen.
 */
export async function atPhoneWidth(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE);
  // nothing may be wider than the phone: no sideways scrolling of the page
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    PHONE.width,
  );
  await expectAccessible(page);
  await screenshot(page, `${name}-390`);
  await page.setViewportSize(LAPTOP);
}

/** How tall the page is, in CSS pixels (a tab must stay within two screens, issue 62). */
export function pageHeight(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollHeight);
}

/**
 * Reloads `page` as a person would, again after a 503 (the console's answer while a service it
 * needs is unavailable or past its deadline, with Retry-After: on a starved CI machine a
 * reload once came back without the page's links), up to three times. Returns the status of
 * the last answer, for the caller to check.
 */
export async function reloadPage(page: Page): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const response = await page.reload();
    const status = response?.status() ?? 0;
    if (status !== 503 || attempt === 3) return status;
    const retryAfter = Number(await response?.headerValue('retry-after')) || 2;
    await page.waitForTimeout(Math.min(Math.max(retryAfter, 1), 5) * 1_000);
  }
}

/**
 * Signs `email` in as a person does, in a new browser context: the sign-in form, the link
 * from the mailbox, its confirm button. Resolves on the member's first brand page. `context`
 * sets up the browser context (another User-Agent, say); `shoot` checks the sign-in form and
 * the link's page for accessibility and keeps the form's screenshot (`sign-in`).
 */
export async function signIn(
  browser: Browser,
  cs: ConsoleStack,
  email: string,
  context: BrowserContextOptions = {},
  opts: { shoot?: boolean } = {},
): Promise<Page> {
  const page = await (await browser.newContext(context)).newPage();
  const since = Date.now() - 1_000;
  await page.goto(`${cs.url}/sign-in`);
  if (opts.shoot) {
    await expectAccessible(page);
    await screenshot(page, 'sign-in');
  }
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();
  await page.goto(await cs.latestLink(email, since));
  if (opts.shoot) {
    await expectAccessible(page);
    await screenshot(page, 'sign-in-confirm');
  }
  await page.getByRole('button', { name: 'Sign in' }).click();
  try {
    await page.waitForURL(/\/brands/, { timeout: SIGN_IN_NAVIGATION_MS });
  } catch (err) {
    // Say so when the link was refused, instead of only that no brand page came.
    if (await page.getByRole('heading', { name: 'This sign-in link does not work' }).isVisible())
      throw new Error(`the sign-in link mailed to ${email} was refused (used, or expired)`);
    throw err;
  }
  return page;
}

/**
 * How long the sign-in's last navigation (the session made, the first brand page rendered and
 * loaded) may take: npm test runs the browser tests at nice 10 beside the fault suite and the
 * benchmark's smoke run on 2 cores. (The keys test's sign-in that ran past 30 s, then 90 s, in
 * three CI runs of 2026-11-27 was not slowness: its stack's links lasted 10 s and expired
 * before "Sign in" was pressed; a refused link is now named as such, above.)
 */
export const SIGN_IN_NAVIGATION_MS = 90_000;

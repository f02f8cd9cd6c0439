// In a real browser (Debian's Chromium via playwright-core), the outside probe's finding of
// 2026-11-30: on a phone (390 px) a table's caption was cut off inside its sideways-scrolling
// box ("Requests per key over the last 24 hours, bigges") and the charts' text came out about
// 5 px high. Every caption fits its box, and every chart's text is 10 px or more on the screen
// and inside its chart, on the usage page and the overview, at a phone's width and a laptop's.
import type { Browser, Page } from 'playwright-core';
import { randomHex } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { atPhoneWidth, LAPTOP, launchChromium, signIn } from './browserKit';

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

/** Each caption that does not fit its box: its text and how far past the box it reaches. */
const cutCaptions = (page: Page) =>
  page.locator('.scroll-x').evaluateAll((boxes) =>
    boxes.flatMap((box) => {
      const caption = box.querySelector(':scope > table > caption');
      if (!caption || caption.classList.contains('visually-hidden')) return [];
      const past = caption.getBoundingClientRect().right - box.getBoundingClientRect().right;
      return past > 0.5 ? [`${caption.textContent ?? ''}: ${past} px past its box`] : [];
    }),
  );

/** Each chart text smaller than 10 px on the screen, or outside its chart. */
const unreadableChartText = (page: Page) =>
  page.locator('svg.chart-svg').evaluateAll((charts) =>
    charts.flatMap((chart) => {
      const svg = chart as SVGSVGElement;
      const frame = svg.getBoundingClientRect();
      const scale = frame.width / svg.viewBox.baseVal.width;
      return Array.from(svg.querySelectorAll('text')).flatMap((t: SVGTextElement) => {
        const style = getComputedStyle(t);
        if (style.display === 'none') return [];
        const px = parseFloat(style.fontSize) * scale;
        const r = t.getBoundingClientRect();
        const outside =
          r.left < frame.left - 0.5 || r.right > frame.right + 0.5 || r.top < frame.top - 0.5;
        return px < 10 || outside
          ? [`"${t.textContent ?? ''}": ${px.toFixed(1)} px${outside ? ', outside the chart' : ''}`]
          : [];
      });
    }),
  );

it('keeps captions whole and chart text readable on a phone and a laptop', async () => {
  const ownerEmail = `owner-${randomHex(4)}@brand.test`;
  const { brand } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'plus',
    verified: true,
    ownerEmail,
  });
  const page = await signIn(browser, cs, ownerEmail);
  for (const [path, name] of [
    ['usage', 'usage'],
    ['', 'overview'],
  ] as const) {
    await page.goto(`${cs.url}/brands/${brand.id}${path === '' ? '' : `/${path}`}`);
    for (const size of [LAPTOP, { width: 390, height: 844 }]) {
      await page.setViewportSize(size);
      expect([name, size.width, await cutCaptions(page)]).toEqual([name, size.width, []]);
      expect([name, size.width, await unreadableChartText(page)]).toEqual([name, size.width, []]);
    }
    await page.setViewportSize(LAPTOP);
    await atPhoneWidth(page, `${name}-phone-check`);
  }
});

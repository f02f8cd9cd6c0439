// The rotation guide on a receiver's page is code a brand copies, so it is run as copied, with node
// and the official client: while a rotation is pending it accepts deliveries signed with the new
// secret and with the current one, and refuses any other signature; after the switch, with the old
// secret removed as it says, the old one is refused. The receiver's path stays a string compared
// exactly, whatever it holds. Both guides serve HTTPS (the receiver's URL is HTTPS) with a
// certificate, here the local test CA's, as on the page.
import { readFileSync } from 'node:fs';
import { EventType } from '@brand/proto/events/v1';
import { createTestCa } from '@brand/testkit';
import { html, receiver } from '../receiverFixtures';
import { ReceiverGuide } from '../../src/pages/receivers/guide';
import { RotationGuide } from '../../src/pages/receivers/rotationGuide';
import {
  deliver,
  exampleCodeOf,
  runExample,
  signedDelivery,
  type RunningExample,
} from '../guideExample';

const current = 'whsec_currentcurrentcurrentcurrent';
const next = 'whsec_nextnextnextnextnextnextnext';
const stranger = 'whsec_strangerstrangerstrangerstranger';
const running: RunningExample[] = [];
afterAll(async () => {
  for (const r of running) await r.stop();
});

const codeFor = (url: string) =>
  exampleCodeOf(
    html(
      RotationGuide({ receiver: receiver({ url, events: [EventType.EVENT_TYPE_PAYOUT_PAID] }) }),
    ),
  );

it('accepts both secrets during the window and only the new one after the switch', async () => {
  const code = codeFor('https://hooks.brand.test/brand-records/in');
  const during = await runExample(code, next, { BRAND_RECORDS_SIGNING_SECRET_OLD: current });
  running.push(during);
  const url = `${during.url}/brand-records/in`;
  expect(await deliver(url, signedDelivery({ secret: next }))).toBe(200);
  expect(await deliver(url, signedDelivery({ secret: current }))).toBe(200);
  expect(await deliver(url, signedDelivery({ secret: stranger }))).toBe(401);
  expect(await deliver(url, signedDelivery({ secret: next, type: 'submission.approved' }))).toBe(
    422,
  );
  await during.stop();

  const after = await runExample(code, next);
  running.push(after);
  const afterUrl = `${after.url}/brand-records/in`;
  expect(await deliver(afterUrl, signedDelivery({ secret: next }))).toBe(200);
  expect(await deliver(afterUrl, signedDelivery({ secret: current }))).toBe(401);
});

it('keeps a hostile path a string: it runs, and only that exact path answers', async () => {
  const code = codeFor("https://hooks.brand.test/in'),process.exit(3),('/:id*");
  const example = await runExample(code, next);
  running.push(example);
  expect(example.running()).toBe(true);
  const exact = `${example.url}${new URL("https://x/in'),process.exit(3),('/:id*").pathname}`;
  expect(await deliver(exact, signedDelivery({ secret: next }))).toBe(200);
  expect(await deliver(`${example.url}/in/anything`, signedDelivery({ secret: next }))).toBe(404);
});

describe('HTTPS, as the receiver URL says (issue 35)', () => {
  const ca = createTestCa();
  afterAll(() => ca.remove());
  const trust = readFileSync(ca.caFile);
  const guides = {
    guide: () =>
      exampleCodeOf(
        html(
          ReceiverGuide({
            receiver: receiver({
              url: 'https://localhost:9443/in',
              events: [EventType.EVENT_TYPE_PAYOUT_PAID],
            }),
          }),
        ),
      ),
    'rotation guide': () => codeFor('https://localhost:9443/in'),
  };

  it.each(Object.keys(guides))(
    'the %s serves HTTPS with the local CA certificate',
    async (name) => {
      const example = await runExample(guides[name as keyof typeof guides](), next, {}, ca);
      running.push(example);
      expect(example.url).toMatch(/^https:/);
      expect(example.output()).toContain('over HTTPS');
      const status = await deliver(`${example.url}/in`, signedDelivery({ secret: next }), trust);
      expect([200, 204]).toContain(status);
    },
  );

  // One guide is enough: both end with the same serving code (serveHttps.tsx).
  it('refuses to start with neither a certificate nor a TLS proxy', async () => {
    await expect(runExample(guides.guide(), next, { TLS_BEHIND_PROXY: '' })).rejects.toThrow(
      /TLS_CERT_FILE and TLS_KEY_FILE/,
    );
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pinnedLookup } from '@brand/shared/egress';
import { Agent } from 'undici';
import { providerFetch, ProviderRefusedError } from './providerFetch';
import { STRICT_PROVIDER_POLICY } from './providerPolicy';

/**
 * An owner who names an issuer learns nothing of the network records runs in: a name that
 * resolves to an internal address and a name that does not resolve at all are refused in the same
 * words (a review, 2026-11-30: "resolves to an address that is not a public address: Private-Use,
 * 10.0.0.0/8" against "did not answer a discovery document" told which internal names exist, and
 * their block). The lookup is the pinned one with its answers given here: no request leaves.
 */
const ANSWERS: Record<string, string | undefined> = {
  'postgres.internal.example': '10.0.0.5',
  'metadata.internal.example': '169.254.169.254',
  'nowhere.internal.example': undefined,
};
const agent = new Agent({
  connect: {
    timeout: 2_000,
    lookup: pinnedLookup(false, (hostname, callback) => {
      const address = ANSWERS[hostname];
      if (address === undefined) {
        const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        err.code = 'ENOTFOUND';
        callback(err, []);
      } else callback(null, [{ address, family: 4 }]);
    }),
  },
});
afterAll(() => agent.close());

async function refusalFor(host: string): Promise<string> {
  const issuer = new URL(`https://${host}/tenant`);
  const fetch = providerFetch(STRICT_PROVIDER_POLICY, issuer, agent);
  const err = await fetch(`${issuer.href}/.well-known/openid-configuration`, {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderRefusedError);
  return (err as Error).message.replaceAll(host, '<host>');
}

it('refuses an internal name and a name that does not resolve in the same words', async () => {
  const answers = await Promise.all(Object.keys(ANSWERS).map(refusalFor));
  expect(new Set(answers).size).toBe(1);
  expect(answers[0]).toBe(
    'https://<host>/tenant/.well-known/openid-configuration: <host> does not resolve to a public address',
  );
});

/**
 * A provider slow to answer is refused as slow whichever deadline fires first: undici's own
 * headers and body timeouts equal the request's, and on a busy machine one fired a moment before
 * the request's abort signal, so the answer was the generic "no usable discovery document" (a CI
 * run, 2026-11-30). Here undici's deadlines are the shorter, on purpose.
 */
describe('a provider slow to answer', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.includes('headers-then-nothing')) res.writeHead(200).write('{');
      // else: never answers
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it.each(['no-headers', 'headers-then-nothing'])('is refused as slow (%s)', async (path) => {
    const quick = new Agent({ headersTimeout: 200, bodyTimeout: 200 });
    try {
      const issuer = new URL(`${origin}/${path}`);
      const fetch = providerFetch({ allowLoopback: true, extraOrigins: [] }, issuer, quick);
      const err = await fetch(`${issuer.href}/.well-known/openid-configuration`, {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ProviderRefusedError);
      expect((err as Error).message).toMatch(/did not answer within/);
    } finally {
      await quick.close();
    }
  });
});

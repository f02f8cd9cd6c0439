import type { LookupAddress } from 'node:dns';
import { ACCEPTED_URLS, REFUSED_URLS } from '../../test/support/receiverUrlCases';
import { addressRefusal, pinnedLookup, portRefusal } from '@brand/shared/egress';
import { checkReceiverUrl, checkUrlShape, type Resolver } from './urlPolicy';

const PUBLIC = '93.184.215.14';

const resolveTo =
  (...addresses: string[]): Resolver =>
  () =>
    Promise.resolve(addresses);

/** Registration and update: the outcome of checkReceiverUrl, as the RPC would report it. */
const refusal = async (url: string, resolve: Resolver = resolveTo(PUBLIC)) =>
  checkReceiverUrl(url, { allowLoopback: false, resolve }).then(
    () => 'accepted',
    (err: { code: string; message: string }) => `${err.code}: ${err.message}`,
  );

/** Connection time for a name: what pinnedLookup answers when it resolves to `answers`. */
const lookup = (
  answers: LookupAddress[],
  all: boolean,
  allowLoopback = false,
): Promise<{ err: (Error & { code?: string }) | null; address: unknown }> =>
  new Promise((resolve) => {
    const pinned = pinnedLookup(allowLoopback, (_h, cb) => cb(null, answers));
    pinned('host.example', { all }, (err, address) => resolve({ err, address }));
  });

const family = (address: string): 4 | 6 => (address.includes(':') ? 6 : 4);

describe('the receiver URL policy, table-driven (issue 19)', () => {
  it('has at least 70 refused URLs, each refused for one reason', () => {
    expect(REFUSED_URLS.length).toBeGreaterThanOrEqual(70);
    expect(new Set(REFUSED_URLS.map((c) => c.url)).size).toBe(REFUSED_URLS.length);
  });

  it.each(REFUSED_URLS)('registration and update refuse $url', async ({ url, reason }) => {
    const outcome = await refusal(url);
    expect(outcome).toMatch(/^validation_failed: url: /);
    expect(outcome).toMatch(reason);
  });

  it.each(REFUSED_URLS)(
    'every delivery attempt refuses $url (checkUrlShape)',
    ({ url, reason }) => {
      // what the sender runs before each attempt: Node never looks up an IP literal
      expect(() => checkUrlShape(url, false)).toThrow(reason);
    },
  );

  /** An IPv4 address, not a block's base (10.0.0.0/8) nor an RFC's section (RFC 4291 2.5.5.1). */
  const DOTTED_QUAD = /(?<!RFC \d+ )\b\d{1,3}(\.\d{1,3}){3}\b(?!\/)/;

  it.each(REFUSED_URLS.filter((c) => c.address !== undefined))(
    'a name resolving to the address of $url is refused at registration and at connection',
    async ({ address }) => {
      const at = await refusal('https://sneaky.example/', resolveTo(address!));
      // neither the address nor its block: the words a name that does not resolve gets, so an
      // owner cannot map internal names by them (reviews, 2026-11-29 and 2026-11-30)
      expect(at).toBe(
        'validation_failed: url: the host name sneaky.example does not resolve to a public address',
      );
      expect(at).not.toMatch(DOTTED_QUAD);
      for (const all of [false, true]) {
        const { err, address: handed } = await lookup(
          [{ address: address!, family: family(address!) }],
          all,
        );
        expect(err?.code).toBe('EBLOCKEDADDRESS');
        expect(err?.message).toBe('host.example does not resolve to a public address');
        expect(handed).toBe('');
      }
    },
  );

  it.each(ACCEPTED_URLS)(
    'accepts $url at registration, at every attempt and at connection',
    async ({ url, address }) => {
      expect(await refusal(url)).toBe('accepted');
      expect(checkUrlShape(url, false)).toBeInstanceOf(URL);
      const a = address ?? PUBLIC;
      expect(await lookup([{ address: a, family: family(a) }], false)).toEqual({
        err: null,
        address: a,
      });
    },
  );
});

describe('checkReceiverUrl', () => {
  it('refuses a name that resolves to a refused address, even among public ones, or not at all, in the same words', async () => {
    // An owner must not learn which internal names exist, nor their block (a review,
    // 2026-11-30: "resolves to an address that is not a public address: Private-Use,
    // 10.0.0.0/8" against "does not resolve" told them apart).
    const fail: Resolver = () => Promise.reject(new Error('ENOTFOUND'));
    const answers = await Promise.all([
      refusal('https://sneaky.example/', resolveTo('10.0.0.5')),
      refusal('https://sneaky.example/', resolveTo(PUBLIC, '::ffff:10.0.0.5')),
      refusal('https://sneaky.example/', fail),
      refusal('https://sneaky.example/', resolveTo()),
    ]);
    expect(new Set(answers)).toEqual(
      new Set([
        'validation_failed: url: the host name sneaky.example does not resolve to a public address',
      ]),
    );
  });

  it('admits exactly 127.0.0.1, ::1 and localhost with the test setting', async () => {
    const opts = { allowLoopback: true, resolve: resolveTo('127.0.0.1', '::1') };
    await expect(checkReceiverUrl('https://127.0.0.1:8443/', opts)).resolves.toBeInstanceOf(URL);
    await expect(checkReceiverUrl('https://[::1]:8443/', opts)).resolves.toBeInstanceOf(URL);
    await expect(checkReceiverUrl('https://localhost:8443/', opts)).resolves.toBeInstanceOf(URL);
    await expect(checkReceiverUrl('https://127.0.0.2/', opts)).rejects.toThrow(/Loopback/);
    await expect(checkReceiverUrl('https://10.0.0.1/', opts)).rejects.toThrow(/Private-Use/);
    await expect(checkReceiverUrl('https://localhost:0/', opts)).rejects.toThrow(/port 0/);
    expect(() => checkUrlShape('http://127.0.0.1/', true)).toThrow(/https/);
  });
});

describe('addressRefusal', () => {
  it('allows public unicast only', () => {
    expect(addressRefusal(PUBLIC, false)).toBeUndefined();
    expect(addressRefusal('8.8.8.8', false)).toBeUndefined();
    expect(addressRefusal('127.0.0.1', false)).toMatch(/Loopback/);
    expect(addressRefusal('not-an-ip', false)).toMatch(/not an IP/);
  });

  it('refuses a zone id, which a resolver may hand back for a scoped address', () => {
    expect(addressRefusal('fe80::1%eth0', false)).toMatch(/zone id/);
    expect(addressRefusal('2606:2800:21f:cb07:6820:80da:af6b:8b2c%1', false)).toMatch(/zone id/);
  });

  it('judges the odd IPv4 spellings ipaddr.js reads as the address they name', () => {
    for (const spelling of ['0x7f.1', '0177.0.0.1', '2130706433', '127.1'])
      expect(addressRefusal(spelling, false)).toMatch(/Loopback/);
  });
});

describe('portRefusal', () => {
  it('allows 443 and 1024-65535 outside the datastore ports; refuses the rest', () => {
    for (const port of [443, 1024, 3000, 8080, 8443, 65535])
      expect(portRefusal(port)).toBeUndefined();
    for (const port of [0, -1, 65536, 1.5, Number.NaN])
      expect(portRefusal(port)).toMatch(/not a port/);
    for (const port of [1, 22, 80, 445, 1023]) expect(portRefusal(port)).toMatch(/well-known port/);
    expect(portRefusal(27017)).toMatch(/MongoDB/);
  });
});

describe('pinnedLookup', () => {
  it('hands the socket the checked addresses, filtered by family', async () => {
    expect(await lookup([{ address: PUBLIC, family: 4 }], true)).toEqual({
      err: null,
      address: [{ address: PUBLIC, family: 4 }],
    });
  });

  it('fails the connection when any address is refused', async () => {
    const { err } = await lookup(
      [
        { address: PUBLIC, family: 4 },
        { address: '::a9fe:a9fe', family: 6 },
      ],
      true,
    );
    expect(err?.message).toBe('host.example does not resolve to a public address');
    expect(err?.code).toBe('EBLOCKEDADDRESS');
  });
});

import type { LookupAddress } from 'node:dns';
import { addressRefusal } from './addressPolicy';
import { pinnedLookup } from './pinnedLookup';
import { checkReceiverUrl, checkUrlShape, type Resolver } from './urlPolicy';

const resolveTo =
  (...addresses: string[]): Resolver =>
  () =>
    Promise.resolve(addresses);

const refusal = async (url: string, resolve: Resolver = resolveTo('93.184.215.14')) =>
  checkReceiverUrl(url, { allowLoopback: false, resolve }).then(
    () => 'accepted',
    (err: { code: string; message: string }) => `${err.code}: ${err.message}`,
  );

describe('checkReceiverUrl', () => {
  it('accepts a public https URL', async () => {
    expect(await refusal('https://hooks.acme.example/brand-events')).toBe('accepted');
    expect(await refusal('https://93.184.215.14:8443/x')).toBe('accepted');
    expect(await refusal('https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/x')).toBe('accepted');
  });

  it.each([
    ['http://hooks.acme.example/', /must use https/],
    ['ftp://hooks.acme.example/', /must use https/],
    ['not a url', /not a valid URL/],
    ['https://user:pw@hooks.acme.example/', /credentials/],
    ['https://user@hooks.acme.example/', /credentials/],
    ['https://127.0.0.1/', /not a public address \(loopback\)/],
    ['https://localhost/', /loopback name/],
    ['https://api.localhost/', /loopback name/],
    ['https://10.1.2.3/', /private/],
    ['https://172.16.0.1/', /private/],
    ['https://192.168.1.1/', /private/],
    ['https://169.254.10.1/', /linkLocal/],
    ['https://169.254.169.254/latest/meta-data', /metadata/],
    ['https://168.63.129.16/', /metadata/],
    ['https://100.100.100.200/', /metadata/],
    ['https://100.64.0.1/', /carrierGradeNat/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://224.0.0.1/', /multicast/],
    ['https://255.255.255.255/', /broadcast/],
    ['https://[::1]/', /loopback/],
    ['https://[::]/', /unspecified/],
    ['https://[fe80::1]/', /linkLocal/],
    ['https://[fc00::1]/', /uniqueLocal/],
    ['https://[fd00:ec2::254]/', /metadata/],
    ['https://[::ffff:127.0.0.1]/', /IPv4-mapped/],
    ['https://[::ffff:93.184.215.14]/', /IPv4-mapped/],
    ['https://[64:ff9b::7f00:1]/', /rfc6052/],
    ['https://[2002:7f00:1::]/', /6to4/],
    ['https://2130706433/', /127\.0\.0\.1 is not a public address/],
    ['https://0x7f.1/', /127\.0\.0\.1 is not a public address/],
    ['https://0x7f000001/', /127\.0\.0\.1 is not a public address/],
    ['https://017700000001/', /127\.0\.0\.1 is not a public address/],
    ['https://hooks.slack.com/services/T0/B0/x', /Slack incoming webhook.*examples\/relay/],
    ['https://discord.com/api/webhooks/1/abc', /Discord.*examples\/relay/],
    ['https://discordapp.com/api/webhooks/1/abc', /Discord/],
    ['https://outlook.office.com/webhook/abc', /Teams/],
    ['https://acme.webhook.office.com/webhookb2/abc', /Teams/],
    ['https://chat.googleapis.com/v1/spaces/x/messages?key=k', /Google Chat/],
  ])('refuses %s', async (url, reason) => {
    expect(await refusal(url)).toMatch(/^validation_failed: url: /);
    expect(await refusal(url)).toMatch(reason);
  });

  it('refuses a name that resolves to a private address, even among public ones', async () => {
    expect(await refusal('https://sneaky.example/', resolveTo('10.0.0.5'))).toMatch(
      /sneaky\.example resolves to 10\.0\.0\.5/,
    );
    expect(
      await refusal('https://sneaky.example/', resolveTo('93.184.215.14', '::ffff:10.0.0.5')),
    ).toMatch(/resolves to ::ffff:10\.0\.0\.5/);
    expect(await refusal('https://meta.example/', resolveTo('169.254.169.254'))).toMatch(
      /metadata/,
    );
  });

  it('refuses a name that does not resolve', async () => {
    const fail: Resolver = () => Promise.reject(new Error('ENOTFOUND'));
    expect(await refusal('https://nowhere.invalid/', fail)).toMatch(/does not resolve/);
  });

  it('admits exactly 127.0.0.1, ::1 and localhost with the test setting', async () => {
    const opts = { allowLoopback: true, resolve: resolveTo('127.0.0.1', '::1') };
    await expect(checkReceiverUrl('https://127.0.0.1:8443/', opts)).resolves.toBeInstanceOf(URL);
    await expect(checkReceiverUrl('https://[::1]:8443/', opts)).resolves.toBeInstanceOf(URL);
    await expect(checkReceiverUrl('https://localhost:8443/', opts)).resolves.toBeInstanceOf(URL);
    await expect(checkReceiverUrl('https://127.0.0.2/', opts)).rejects.toThrow(/loopback/);
    await expect(checkReceiverUrl('https://10.0.0.1/', opts)).rejects.toThrow(/private/);
    expect(() => checkUrlShape('http://127.0.0.1/', true)).toThrow(/https/);
  });
});

describe('addressRefusal', () => {
  it('allows public unicast only', () => {
    expect(addressRefusal('93.184.215.14', false)).toBeUndefined();
    expect(addressRefusal('8.8.8.8', false)).toBeUndefined();
    expect(addressRefusal('127.0.0.1', false)).toMatch(/loopback/);
    expect(addressRefusal('not-an-ip', false)).toMatch(/not an IP/);
  });
});

describe('pinnedLookup', () => {
  const run = (
    answers: LookupAddress[],
    all: boolean,
  ): Promise<{ err: Error | null; address: unknown }> =>
    new Promise((resolve) => {
      const lookup = pinnedLookup(false, (_h, cb) => cb(null, answers));
      lookup('host.example', { all }, (err, address) => resolve({ err, address }));
    });

  it('hands the socket the checked addresses', async () => {
    expect(await run([{ address: '93.184.215.14', family: 4 }], false)).toEqual({
      err: null,
      address: '93.184.215.14',
    });
    expect((await run([{ address: '93.184.215.14', family: 4 }], true)).address).toEqual([
      { address: '93.184.215.14', family: 4 },
    ]);
  });

  it('fails the connection when any address is refused', async () => {
    const { err } = await run(
      [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      true,
    );
    expect(err?.message).toMatch(/resolves to 10\.0\.0\.1/);
    expect((err as { code?: string }).code).toBe('EBLOCKEDADDRESS');
  });
});

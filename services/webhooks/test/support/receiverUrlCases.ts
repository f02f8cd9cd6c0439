/**
 * The receiver URL policy as a table (issue 19): every URL below must be refused, with a
 * reason matching the pattern, at registration and update (checkReceiverUrl, and the real
 * admin RPCs in test/integration/urlRules.test.ts) and at connection time (the sender's
 * checkUrlShape before every attempt, and pinnedLookup for a name resolving to `address`).
 * The probe's forms of issue 19 come first. Names resolve to a public address unless
 * `address` says otherwise.
 */
export interface RefusedUrl {
  url: string;
  reason: RegExp;
  /** The IP address the URL names (after WHATWG normalisation), when it names one. */
  address?: string;
}

/** [url, reason, address] rows, expanded below. */
const ROWS: Array<[string, RegExp, string?]> = [
  // issue 19's probe: IPv4-compatible IPv6 (::/96) and port 0
  ['https://[::a9fe:a9fe]/', /IPv4-compatible/, '::a9fe:a9fe'],
  ['https://[::a00:1]/', /IPv4-compatible/, '::a00:1'],
  ['https://[::7f00:2]/', /IPv4-compatible/, '::7f00:2'],
  ['https://[::127.0.0.1]/', /IPv4-compatible/, '::7f00:1'],
  ['https://localhost:0/', /port 0 is not a port/],
  // the IPv4 special-purpose registry, block by block
  ['https://0.0.0.0/', /This host on this network/, '0.0.0.0'],
  ['https://0.1.2.3/', /This network/, '0.1.2.3'],
  ['https://10.0.0.1/', /Private-Use, 10\.0\.0\.0\/8 \(RFC 1918\)/, '10.0.0.1'],
  ['https://10.255.255.254/', /Private-Use/, '10.255.255.254'],
  ['https://100.64.0.1/', /Shared Address Space/, '100.64.0.1'],
  ['https://100.127.255.254/', /Shared Address Space/, '100.127.255.254'],
  ['https://127.0.0.1/', /Loopback, 127\.0\.0\.0\/8/, '127.0.0.1'],
  ['https://127.255.255.254/', /Loopback/, '127.255.255.254'],
  ['https://169.254.0.1/', /Link Local/, '169.254.0.1'],
  ['https://169.254.169.254/latest/meta-data', /metadata/, '169.254.169.254'],
  ['https://172.16.0.1/', /Private-Use, 172\.16\.0\.0\/12/, '172.16.0.1'],
  ['https://172.31.255.254/', /Private-Use/, '172.31.255.254'],
  ['https://192.0.0.1/', /IPv4 Service Continuity Prefix/, '192.0.0.1'],
  ['https://192.0.0.8/', /IPv4 dummy address/, '192.0.0.8'],
  ['https://192.0.0.9/', /special-purpose address.*Port Control Protocol Anycast/, '192.0.0.9'],
  ['https://192.0.0.170/', /NAT64\/DNS64 Discovery/, '192.0.0.170'],
  ['https://192.0.0.200/', /IETF Protocol Assignments/, '192.0.0.200'],
  ['https://192.0.2.10/', /TEST-NET-1/, '192.0.2.10'],
  ['https://192.31.196.1/', /special-purpose address.*AS112-v4/, '192.31.196.1'],
  ['https://192.88.99.1/', /6to4 Relay Anycast/, '192.88.99.1'],
  ['https://192.88.99.2/', /6a44-relay/, '192.88.99.2'],
  ['https://192.168.1.1/', /Private-Use, 192\.168\.0\.0\/16/, '192.168.1.1'],
  ['https://198.18.0.1/', /Benchmarking/, '198.18.0.1'],
  ['https://198.19.255.254/', /Benchmarking/, '198.19.255.254'],
  ['https://198.51.100.7/', /TEST-NET-2/, '198.51.100.7'],
  ['https://203.0.113.9/', /TEST-NET-3/, '203.0.113.9'],
  ['https://240.0.0.1/', /Reserved, 240\.0\.0\.0\/4/, '240.0.0.1'],
  ['https://255.255.255.255/', /Limited Broadcast/, '255.255.255.255'],
  ['https://224.0.0.1/', /Multicast, 224\.0\.0\.0\/4/, '224.0.0.1'],
  ['https://239.255.255.250/', /Multicast/, '239.255.255.250'],
  ['https://168.63.129.16/', /metadata/, '168.63.129.16'],
  ['https://100.100.100.200/', /metadata/, '100.100.100.200'],
  // IPv4 in the spellings the WHATWG parser normalises
  ['https://2130706433/', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  ['https://0x7f.1/', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  ['https://0x7f000001/', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  ['https://017700000001/', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  ['https://0177.0.0.1/', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  ['https://127.1/', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  ['https://127.000.000.001/', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  ['https://127.0.0.1./', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  ['https://%31%32%37.0.0.1/', /127\.0\.0\.1(, which)? is not a public address/, '127.0.0.1'],
  [
    'https://\uff11\uff12\uff17.0.0.1/',
    /127\.0\.0\.1(, which)? is not a public address/,
    '127.0.0.1',
  ],
  ['https://0xa9.0xfe.0xa9.0xfe/', /metadata/, '169.254.169.254'],
  ['https://0251.0376.0251.0376/', /metadata/, '169.254.169.254'],
  ['https://2852039166/', /metadata/, '169.254.169.254'],
  ['https://10.1/', /10\.0\.0\.1(, which)? is not a public address/, '10.0.0.1'],
  ['https://0x0a000001/', /10\.0\.0\.1(, which)? is not a public address/, '10.0.0.1'],
  ['https://0/', /0\.0\.0\.0(, which)? is not a public address/, '0.0.0.0'],
  // the IPv6 special-purpose registry, the embedding forms, and the space outside 2000::/3
  ['https://[::1]/', /Loopback Address/, '::1'],
  ['https://[0:0:0:0:0:0:0:1]/', /Loopback Address/, '::1'],
  ['https://[::0.0.0.1]/', /Loopback Address/, '::1'],
  ['https://[::]/', /Unspecified Address/, '::'],
  ['https://[::ffff:127.0.0.1]/', /IPv4-mapped IPv6 address \(127\.0\.0\.1\)/, '::ffff:7f00:1'],
  ['https://[::ffff:a9fe:a9fe]/', /IPv4-mapped/, '::ffff:a9fe:a9fe'],
  ['https://[::ffff:93.184.215.14]/', /IPv4-mapped/, '::ffff:5db8:d70e'],
  ['https://[::ffff:0:7f00:1]/', /outside global unicast/, '::ffff:0:7f00:1'],
  ['https://[64:ff9b::7f00:1]/', /embeds 127\.0\.0\.1 \(IPv4-IPv6 Translation/, '64:ff9b::7f00:1'],
  ['https://[64:ff9b::a9fe:a9fe]/', /embeds 169\.254\.169\.254.*metadata/, '64:ff9b::a9fe:a9fe'],
  ['https://[64:ff9b::10.0.0.1]/', /embeds 10\.0\.0\.1.*Private-Use/, '64:ff9b::a00:1'],
  ['https://[64:ff9b::192.0.2.1]/', /embeds 192\.0\.2\.1.*TEST-NET-1/, '64:ff9b::c000:201'],
  ['https://[64:ff9b:1::5db8:d70e]/', /Local-use IPv4\/IPv6 Translation/, '64:ff9b:1::5db8:d70e'],
  ['https://[2002:7f00:1::]/', /embeds 127\.0\.0\.1 \(6to4/, '2002:7f00:1::'],
  ['https://[2002:a9fe:a9fe::1]/', /embeds 169\.254\.169\.254/, '2002:a9fe:a9fe::1'],
  ['https://[2002:c0a8:101::1]/', /embeds 192\.168\.1\.1/, '2002:c0a8:101::1'],
  ['https://[2001::1]/', /TEREDO/, '2001::1'],
  [
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    /TEREDO/,
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  ],
  ['https://[2001:1::1]/', /special-purpose address.*Port Control Protocol Anycast/, '2001:1::1'],
  ['https://[2001:1::4]/', /IETF Protocol Assignments/, '2001:1::4'],
  ['https://[2001:2::1]/', /Benchmarking/, '2001:2::1'],
  ['https://[2001:10::1]/', /previously ORCHID/, '2001:10::1'],
  ['https://[2001:20::1]/', /special-purpose address.*ORCHIDv2/, '2001:20::1'],
  ['https://[2001:db8::1]/', /Documentation, 2001:db8::\/32/, '2001:db8::1'],
  ['https://[3fff::1]/', /Documentation, 3fff::\/20/, '3fff::1'],
  ['https://[fc00::1]/', /Unique-Local/, 'fc00::1'],
  ['https://[fd12:3456:789a::1]/', /Unique-Local/, 'fd12:3456:789a::1'],
  ['https://[fd00:ec2::254]/', /metadata/, 'fd00:ec2::254'],
  ['https://[fe80::1]/', /Link-Local Unicast/, 'fe80::1'],
  ['https://[febf::1]/', /Link-Local Unicast/, 'febf::1'],
  ['https://[fec0::1]/', /Site-Local/, 'fec0::1'],
  ['https://[ff02::1]/', /Multicast, ff00::\/8/, 'ff02::1'],
  ['https://[ff05::2]/', /Multicast/, 'ff05::2'],
  ['https://[100::1]/', /Discard-Only/, '100::1'],
  ['https://[5f00::1]/', /Segment Routing/, '5f00::1'],
  ['https://[4000::1]/', /outside global unicast 2000::\/3/, '4000::1'],
  ['https://[fe80::1%25eth0]/', /not a valid URL/],
  // ports: 0, out of range, well-known ports of other protocols, datastores
  ['https://93.184.215.14:0/', /port 0 is not a port/],
  ['https://hooks.acme.example:0/', /port 0 is not a port/],
  ['https://hooks.acme.example:65536/', /port 65536 is not a port/],
  ['https://hooks.acme.example:99999/', /port 99999 is not a port/],
  ['https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:70000/', /port 70000 is not a port/],
  ['https://hooks.acme.example:22/', /port 22 is a well-known port/],
  ['https://hooks.acme.example:25/', /port 25 is a well-known port/],
  ['https://hooks.acme.example:80/', /port 80 is a well-known port/],
  ['https://hooks.acme.example:1023/', /port 1023 is a well-known port/],
  ['https://hooks.acme.example:6379/', /port 6379 is Redis's port/],
  ['https://hooks.acme.example:5432/', /port 5432 is PostgreSQL's port/],
  // scheme, credentials, loopback names, team-chat incoming webhooks
  ['http://hooks.acme.example/', /must use https/],
  ['ftp://hooks.acme.example/', /must use https/],
  ['not a url', /not a valid URL/],
  ['https://user:pw@hooks.acme.example/', /credentials/],
  ['https://localhost/', /loopback name/],
  ['https://api.localhost/', /loopback name/],
  ['https://hooks.slack.com/services/T0/B0/x', /Slack incoming webhook.*examples\/relay/],
  ['https://discord.com/api/webhooks/1/abc', /Discord.*examples\/relay/],
  ['https://outlook.office.com/webhook/abc', /Teams/],
  ['https://chat.googleapis.com/v1/spaces/x/messages?key=k', /Google Chat/],
];

export const REFUSED_URLS: RefusedUrl[] = ROWS.map(([url, reason, address]) => ({
  url,
  reason,
  ...(address ? { address } : {}),
}));

/** URLs that must pass (the policy refuses special addresses, not public ones). */
export const ACCEPTED_URLS: Array<{ url: string; address?: string }> = [
  { url: 'https://hooks.acme.example/brand-events' },
  { url: 'https://hooks.acme.example:8443/brand-events' },
  { url: 'https://hooks.acme.example:1024/' },
  { url: 'https://hooks.acme.example:65535/' },
  { url: 'https://hooks.acme.example:443/' },
  { url: 'https://93.184.215.14/x', address: '93.184.215.14' },
  { url: 'https://1.1.1.1/', address: '1.1.1.1' },
  {
    url: 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/x',
    address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
  },
  { url: 'https://[2001:4860:4860::8888]/', address: '2001:4860:4860::8888' },
  // NAT64 and 6to4 of a public IPv4 address (a DNS64 network synthesises the former)
  { url: 'https://[64:ff9b::5db8:d70e]/', address: '64:ff9b::5db8:d70e' },
  { url: 'https://[2002:5db8:d70e::1]/', address: '2002:5db8:d70e::1' },
];

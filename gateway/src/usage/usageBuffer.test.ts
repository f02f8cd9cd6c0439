import { UsageSurface, type RefusedRequest } from '@brand/proto/access/v1/usage';
import { UsageBuffer, logShares, type UsageDrop, type UsageDropDetail } from './usageBuffer';

const REST = UsageSurface.USAGE_SURFACE_REST;
const ASSISTANT = UsageSurface.USAGE_SURFACE_ASSISTANT;
/** The subject arguments of an admitted key of br_a. */
const key = (id: string) => [id, 'br_a', id, '', ''] as const;
const refused = (n: number) => ({
  at: n,
  brand_id: '',
  key_id: '',
  key_hash: '',
  address_brand_id: 'br_a',
  method: 'GET',
  path: '/v1/resources/products',
  status: 401,
  error_code: 'missing_key',
  request_id: `req_${n}`,
  surface: REST,
  gateway_reason: 'no_key',
});

describe('UsageBuffer', () => {
  it('merges counts of one bucket and keeps buckets apart by minute, surface and outcome', () => {
    const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 10 });
    for (let i = 0; i < 5; i += 1) buffer.count(...key('key_1'), 1000, REST, '2xx', 1);
    buffer.count(...key('key_1'), 1000, REST, '304', 2);
    buffer.count(...key('key_1'), 1000, ASSISTANT, '2xx', 3);
    buffer.count(...key('key_1'), 1001, REST, '2xx', 1);
    buffer.count(...key('key_2'), 1000, REST, '2xx', 4);
    expect(buffer.size()).toEqual({ buckets: 5, logEntries: 0 });
    const { counts } = buffer.drain();
    const seen = counts.map((c) => [c.key_id, c.minute, c.surface, c.outcome, c.count]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['key_1', 60_000, REST, '2xx', 5],
        ['key_1', 60_000, REST, '304', 2],
        ['key_1', 60_000, ASSISTANT, '2xx', 3],
        ['key_1', 60_060, REST, '2xx', 1],
        ['key_2', 60_000, REST, '2xx', 4],
      ]),
    );
    expect(counts).toHaveLength(5);
  });

  it('drops what exceeds its bounds and says how much, but keeps adding to held buckets', () => {
    const drops: [UsageDrop, number][] = [];
    const buffer = new UsageBuffer({ maxBuckets: 2, maxLogEntries: 1 }, (kind, n) =>
      drops.push([kind, n]),
    );
    buffer.count(...key('key_1'), 1, REST, '2xx', 1);
    buffer.count(...key('key_1'), 1, REST, '304', 1);
    buffer.count(...key('key_1'), 2, REST, '2xx', 7); // a third bucket: dropped
    buffer.count(...key('key_9'), 1, REST, '2xx', 3); // a new subject: dropped
    buffer.count(...key('key_1'), 1, REST, '2xx', 4); // an existing bucket: added
    buffer.logRequest(refused(1));
    buffer.logRequest(refused(2));
    expect(drops).toEqual([
      ['counts', 7],
      ['counts', 3],
      ['log', 1],
    ]);
    const { counts, requests } = buffer.drain();
    expect(counts.find((c) => c.outcome === '2xx')?.count).toBe(5);
    expect(requests.map((r) => r.request_id)).toEqual(['req_1']);
  });

  it('starts empty after a drain, with room again', () => {
    const buffer = new UsageBuffer({ maxBuckets: 1, maxLogEntries: 1 });
    buffer.count(...key('key_1'), 1, REST, '2xx', 1);
    buffer.logRequest(refused(1));
    buffer.drain();
    expect(buffer.size()).toEqual({ buckets: 0, logEntries: 0 });
    expect(buffer.drain()).toEqual({ counts: [], requests: [] });
    buffer.count(...key('key_2'), 1, REST, '2xx', 1);
    expect(buffer.drain().counts).toHaveLength(1);
  });

  it('keeps three quarters of the buckets for subjects a brand is known for', () => {
    const drops: [UsageDrop, number, string][] = [];
    const buffer = new UsageBuffer({ maxBuckets: 8, maxLogEntries: 1 }, (kind, n, d) =>
      drops.push([kind, n, d.reason]),
    );
    // random keys from an address no brand uses: each its own subject
    for (let i = 0; i < 5; i += 1) {
      const hash = i.toString(16).padStart(64, '0');
      buffer.count(hash, '', '', hash, '', 1, REST, '429', 1);
    }
    const hash = 'e'.repeat(64);
    buffer.count(hash, '', '', hash, 'br_b', 1, REST, '4xx:invalid_key', 1); // an address brand's
    // 2 + 1 + 5 fill the 8; a sixth key finds none
    for (let i = 0; i < 6; i += 1) buffer.count(...key(`key_${i}`), 1, REST, '2xx', 1);
    expect(drops).toEqual([
      ['counts', 1, 'unattributable'],
      ['counts', 1, 'unattributable'],
      ['counts', 1, 'unattributable'],
      ['counts', 1, 'buckets_full'],
    ]);
    expect(buffer.drain().counts).toHaveLength(8);
  });

  it('keeps what a subject was first counted with', () => {
    const buffer = new UsageBuffer({ maxBuckets: 10, maxLogEntries: 1 });
    const hash = 'a'.repeat(64);
    buffer.count(hash, '', '', hash, 'br_seen', 1, REST, '4xx:invalid_key', 1);
    buffer.count(hash, '', '', hash, 'br_later', 1, REST, '4xx:invalid_key', 2);
    expect(buffer.drain().counts).toEqual([
      {
        brand_id: '',
        key_id: '',
        key_hash: hash,
        address_brand_id: 'br_seen',
        minute: 60,
        surface: REST,
        outcome: '4xx:invalid_key',
        count: 3,
      },
    ]);
  });
});

/** A refused request: by default an unknown well-formed key from an address no brand uses. */
const request = (over: Partial<RefusedRequest> = {}): RefusedRequest => ({
  at: 1_000,
  brand_id: '',
  key_id: '',
  key_hash: 'f'.repeat(64),
  address_brand_id: '',
  method: 'GET',
  path: '/api/v1/campaigns',
  status: 401,
  error_code: 'invalid_key',
  request_id: 'req_flood',
  surface: REST,
  gateway_reason: '',
  client_address: '198.51.100.7',
  ...over,
});
/** A leaked key of br_b refused outside its networks (a 403 the brand must see). */
const leaked = (n: number) =>
  request({
    at: 2_000 + n,
    brand_id: 'br_b',
    key_id: 'key_b',
    key_hash: '',
    status: 403,
    error_code: 'network_not_allowed',
    request_id: `req_leak_${n}`,
    client_address: '192.0.2.50',
  });
const hex = (i: number) => i.toString(16).padStart(64, '0');

describe('UsageBuffer: one source cannot crowd out the others (the request log)', () => {
  it("keeps another brand's refusal after a flood of random keys from one address filled the window", () => {
    const drops: [UsageDrop, number][] = [];
    const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 1_000 }, (kind, n) =>
      drops.push([kind, n]),
    );
    // ~250 a second for 5 s: each a new random key, answered 401 then 429 (uncharged)
    for (let i = 0; i < 1_250; i += 1)
      buffer.logRequest(
        request({ key_hash: hex(i), request_id: `req_${i}`, status: i < 60 ? 401 : 429 }),
      );
    buffer.logRequest(leaked(1));
    const { requests } = buffer.drain();
    expect(requests.filter((r) => r.request_id === 'req_leak_1')).toHaveLength(1);
    expect(requests.length).toBeLessThanOrEqual(1_000);
  });

  it("keeps another brand's refusal after one brand flooded the window with its own key", () => {
    const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 1_000 });
    for (let i = 0; i < 1_250; i += 1)
      buffer.logRequest(
        request({
          brand_id: 'br_a',
          key_id: 'key_a',
          key_hash: '',
          status: 429,
          error_code: 'rate_limited',
          request_id: `req_${i}`,
          client_address: '203.0.113.1',
        }),
      );
    buffer.logRequest(leaked(1));
    const { requests } = buffer.drain();
    expect(requests.map((r) => r.request_id)).toContain('req_leak_1');
  });

  it("folds a source's overflow into one summary entry that says how many it stands for", () => {
    const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 1_000 });
    for (let i = 0; i < 100; i += 1) buffer.logRequest(leaked(i));
    const { requests } = buffer.drain();
    // the first 20 as they were, then one entry for the other 80
    expect(requests).toHaveLength(21);
    expect(requests.slice(0, 20).map((r) => r.request_id)).toEqual(
      Array.from({ length: 20 }, (_, i) => `req_leak_${i}`),
    );
    const summary = requests[20]!;
    expect(summary).toMatchObject({
      brand_id: 'br_b',
      key_id: 'key_b',
      status: 403,
      error_code: 'network_not_allowed',
      request_id: 'req_leak_20',
      at: 2_020,
    });
    expect(summary.path).toBe(
      '/api/v1/campaigns (and 79 more refused or failed requests with the same key up to 1970-01-01T00:00:02.099Z, not logged one by one)',
    );
  });

  it('gives the room of unplaceable entries to placeable ones first, and says what went', () => {
    const drops: [UsageDrop, number, string, string][] = [];
    const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 100 }, (kind, n, d) =>
      drops.push([kind, n, d.reason, d.brandId]),
    );
    // 90 addresses (a botnet) each send one unknown key: the whole room, none attributable
    for (let i = 0; i < 90; i += 1)
      buffer.logRequest(request({ client_address: `198.51.100.${i}`, request_id: `req_${i}` }));
    expect(buffer.size().logEntries).toBe(90);
    buffer.logRequest(request({ client_address: '198.51.100.200' })); // no room: dropped
    // a brand's refusals take the newest unplaceable entries' room
    for (let i = 0; i < 3; i += 1) buffer.logRequest(leaked(i));
    expect(buffer.takeDrops()).toEqual({ dropped: { 'log:unattributable': 4 }, brands: [] });
    expect(drops).toEqual(Array.from({ length: 4 }, () => ['log', 1, 'unattributable', '']));
    const { requests } = buffer.drain();
    expect(requests).toHaveLength(90);
    expect(requests.filter((r) => r.brand_id === 'br_b')).toHaveLength(3);
    expect(requests.map((r) => r.request_id)).not.toContain('req_89');
    expect(buffer.takeDrops()).toBeUndefined();
  });

  it('evicts the newest unplaceable entry first, a summary with all it counted', () => {
    const drops: number[] = [];
    const buffer = new UsageBuffer(
      { maxBuckets: 100, maxLogEntries: 3, shares: { markers: 0, perBrand: 3, perSource: 1 } },
      (_kind, n) => drops.push(n),
    );
    for (let i = 0; i < 5; i += 1) buffer.logRequest(request({ at: 1_000 + i })); // 1 + summary of 4
    buffer.logRequest(request({ client_address: '198.51.100.8', at: 1_010 }));
    buffer.logRequest(leaked(1)); // evicts 198.51.100.8's
    buffer.logRequest(leaked(2)); // evicts the summary: the 4 it counted
    expect(drops).toEqual([1, 4]);
    const { requests } = buffer.drain();
    expect(requests.map((r) => r.request_id)).toEqual(['req_flood', 'req_leak_1', 'req_leak_2']);
  });

  it("keeps a brand to its share, and counts the rest in one marker in that brand's log", () => {
    const drops: UsageDropDetail[] = [];
    const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 1_000 }, (_k, _n, d) =>
      drops.push(d),
    );
    // a brand with 10 keys, each refused 30 times: 90 entries at most (20 + a summary a key)
    for (let k = 0; k < 10; k += 1)
      for (let i = 0; i < 30; i += 1)
        buffer.logRequest(
          request({
            at: 3_000 + k * 30 + i,
            brand_id: 'br_a',
            key_id: `key_a${k}`,
            key_hash: '',
            status: 403,
            error_code: 'insufficient_permission',
            request_id: `req_${k}_${i}`,
          }),
        );
    buffer.logRequest(leaked(1));
    const { requests } = buffer.drain();
    const own = requests.filter((r) => r.brand_id === 'br_a');
    expect(own).toHaveLength(91); // the share, and the marker
    const marker = own.find((r) => r.path.includes('lost'))!;
    expect(marker).toMatchObject({ key_id: 'key_a4', request_id: 'req_4_6', at: 3_126 });
    expect(marker.path).toBe(
      "/api/v1/campaigns (and 173 more refused or failed requests of this brand up to 1970-01-01T00:00:03.299Z, lost: this gateway's request log had no more room for this brand)",
    );
    const counted = requests.filter((r) => r.brand_id === 'br_a');
    const standsFor = (r: RefusedRequest) => Number(/\(and (\d+) more/.exec(r.path)?.[1] ?? 0) + 1;
    expect(counted.reduce((n, r) => n + standsFor(r), 0)).toBe(300);
    expect(drops).toHaveLength(173);
    expect(drops.every((d) => d.reason === 'brand_share' && d.brandId === 'br_a')).toBe(true);
    expect(requests.map((r) => r.request_id)).toContain('req_leak_1');
  });

  it('files a summary of an address under the address brand only, without the key hash', () => {
    const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 1_000 });
    for (let i = 0; i < 25; i += 1)
      buffer.logRequest(
        request({ key_hash: hex(i), address_brand_id: 'br_c', request_id: `req_${i}` }),
      );
    const { requests } = buffer.drain();
    expect(requests).toHaveLength(21);
    expect(requests[19]).toMatchObject({ key_hash: hex(19), address_brand_id: 'br_c' });
    expect(requests[20]).toMatchObject({
      key_hash: '',
      address_brand_id: 'br_c',
      gateway_reason: 'malformed',
      request_id: 'req_20',
    });
    expect(requests[20]!.path).toContain(
      '4 more refused or failed requests with the same client address',
    );
  });

  it('counts a source by its IPv6 /64, as the anonymous budget does', () => {
    const buffer = new UsageBuffer({ maxBuckets: 100, maxLogEntries: 1_000 });
    for (let i = 0; i < 50; i += 1)
      buffer.logRequest(request({ client_address: `2001:db8:1:2::${i.toString(16)}` }));
    expect(buffer.size().logEntries).toBe(21);
  });

  it('never holds more than maxLogEntries, whatever the mix', () => {
    for (const max of [1, 7, 100, 1_000]) {
      const buffer = new UsageBuffer({ maxBuckets: 1, maxLogEntries: max });
      let seed = max;
      const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
      for (let i = 0; i < 2_000; i += 1) {
        const r = next() % 4;
        buffer.logRequest(
          r === 0
            ? request({ client_address: `198.51.${next() % 256}.${next() % 256}` })
            : r === 1
              ? request({ brand_id: `br_${next() % 40}`, key_id: `key_${next() % 200}` })
              : r === 2
                ? request({
                    address_brand_id: `br_${next() % 40}`,
                    client_address: `203.0.113.${next() % 50}`,
                  })
                : leaked(i),
        );
        expect(buffer.size().logEntries).toBeLessThanOrEqual(max);
      }
      expect(buffer.drain().requests.length).toBeLessThanOrEqual(max);
    }
  });

  it('derives the shares from the bound', () => {
    expect(logShares(1_000)).toEqual({ markers: 100, perBrand: 90, perSource: 20 });
    expect(logShares(5_000)).toEqual({ markers: 500, perBrand: 450, perSource: 20 });
    expect(logShares(1)).toEqual({ markers: 0, perBrand: 1, perSource: 1 });
  });
});

import { UsageSurface } from '@brand/proto/access/v1/usage';
import { UsageBuffer, type UsageDrop } from './usageBuffer';

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

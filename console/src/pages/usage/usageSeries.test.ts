import { UsageSurface, type GetUsageResponse, type KeyUsage } from '@brand/proto/access/v1/usage';
import { usageDescription } from './usageChart';
import { GATEWAY_ERROR_CODES, httpStatusOf } from '@brand/shared/errors';
import { classOf, keyRows, refusalCodeOf, refusalsByCode, slicesOf } from './usageSeries';
import { reasonWords } from './requestLogView';

const REST = UsageSurface.USAGE_SURFACE_REST;
const ASSISTANT = UsageSurface.USAGE_SURFACE_ASSISTANT;

const usage = (buckets: GetUsageResponse['buckets']): GetUsageResponse => ({
  brand_id: 'br_a',
  window: '24h',
  bucket_seconds: 60,
  from: '2026-11-22T10:01:00.000000Z',
  buckets,
  limit_per_minute: 60,
  keys: [],
});

describe('usage series', () => {
  it('classes outcomes, 4xx codes together', () => {
    expect(
      ['2xx', '304', '4xx:invalid_key', '4xx:unknown_resource', '429', '5xx'].map(classOf),
    ).toEqual(['2xx', '304', '4xx', '4xx', '429', '5xx']);
  });

  it('puts every bucket in its slice of its surface, zeros in between', () => {
    const u = usage([
      { start: '2026-11-22T10:01:00.000000Z', surface: REST, outcome: '2xx', count: 3 },
      { start: '2026-11-22T10:01:00.000000Z', surface: REST, outcome: '4xx:invalid_key', count: 2 },
      { start: '2026-11-22T10:03:00.000000Z', surface: ASSISTANT, outcome: '2xx', count: 7 },
      { start: '2026-11-23T10:00:00.000000Z', surface: REST, outcome: '429', count: 1 },
    ]);
    const rest = slicesOf(u, 'rest');
    expect(rest).toHaveLength(1440);
    expect(rest[0]!.counts).toEqual({ '2xx': 3, '304': 0, '4xx': 2, '429': 0, '5xx': 0 });
    expect(rest[1439]!.counts['429']).toBe(1);
    expect(rest[2]!.counts['2xx']).toBe(0);
    expect(slicesOf(u, 'assistant')[2]!.counts['2xx']).toBe(7);
    expect(usageDescription(rest, 60, 'minute')).toBe(
      '6 requests: 3 succeeded (2xx), 2 refused (4xx), 1 rate limited (429). The busiest minute (from 2026-11-22 10:01 UTC) had 5, against a budget of 60 a minute.',
    );
  });

  it('describes one request in the singular, and thousands with separators', () => {
    const one = slicesOf(
      usage([{ start: '2026-11-22T10:01:00.000000Z', surface: REST, outcome: '2xx', count: 1 }]),
      'rest',
    );
    expect(usageDescription(one, 14_400, 'minute')).toBe(
      '1 request: 1 succeeded (2xx). The busiest minute (from 2026-11-22 10:01 UTC) had 1, against a budget of 14,400 a minute.',
    );
    const many = slicesOf(
      usage([
        { start: '2026-11-22T10:01:00.000000Z', surface: REST, outcome: '2xx', count: 12_345 },
      ]),
      'rest',
    );
    expect(usageDescription(many, 60, 'minute')).toMatch(
      /^12,345 requests: 12,345 succeeded \(2xx\)\. The busiest minute .* had 12,345, against a budget of 60 a minute\.$/,
    );
  });

  it('totals each key, biggest spender first, and counts refusals by code', () => {
    const k = (
      key_id: string,
      surface: UsageSurface,
      outcome: string,
      count: number,
    ): KeyUsage => ({
      key_id,
      name: key_id,
      prefix: 'bk_live_x',
      surface,
      outcome,
      count,
    });
    const keys = [
      k('key_small', REST, '2xx', 5),
      k('key_big', REST, '2xx', 50),
      k('key_big', ASSISTANT, '429', 4),
      k('', REST, '4xx:missing_key', 3),
      k('key_small', REST, '4xx:invalid_key', 1),
      k('key_big', REST, '4xx:invalid_key', 2),
    ];
    const rows = keyRows(keys);
    expect(rows.map((r) => [r.keyId, r.rest, r.assistant, r.total])).toEqual([
      ['key_big', 52, 4, 56],
      ['key_small', 6, 0, 6],
      ['', 3, 0, 3],
    ]);
    // Issue 35: the 429s (counted apart as the budget spent) are refusals of their own code.
    expect(refusalsByCode(keys)).toEqual([
      ['rate_limited', 4],
      ['invalid_key', 3],
      ['missing_key', 3],
    ]);
  });

  it('names the code of every 4xx the gateway answers, from the error table (issue 35)', () => {
    // the outcomes the gateway counts: "429" for its one 429 code, "4xx:<code>" for the others
    const refusals = GATEWAY_ERROR_CODES.filter((c) => httpStatusOf(c) < 500);
    for (const code of refusals) {
      const outcome = httpStatusOf(code) === 429 ? '429' : `4xx:${code}`;
      expect([outcome, refusalCodeOf(outcome)]).toEqual([outcome, code]);
    }
    expect(refusals).toContain('rate_limited');
    expect(refusalCodeOf('2xx')).toBeUndefined();
    expect(refusalCodeOf('5xx')).toBeUndefined();
  });
});

describe('reasonWords', () => {
  const entry = (reason: string, reason_at = '', reason_by = '') =>
    reasonWords({
      id: '1',
      at: '',
      key_id: '',
      key_name: '',
      key_prefix: '',
      method: 'GET',
      path: '/',
      status: 401,
      error_code: 'invalid_key',
      request_id: 'req_1',
      surface: REST,
      reason,
      reason_at,
      reason_by,
    });
  it('says each reason, never naming another brand', () => {
    expect(entry('revoked', '2026-11-23T10:00:00.000000Z', 'ana@acme.test')).toBe(
      'The key was revoked on 2026-11-23 10:00 UTC by ana@acme.test.',
    );
    expect(entry('wrong_environment')).toMatch(/test key .* live/);
    expect(entry('other_brand')).toBe(
      "A key of another brand was sent from an address that uses this brand's keys.",
    );
    expect(entry('')).toBe('');
  });
});

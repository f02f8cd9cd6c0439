import { outcomeOf, statusOf } from './usageOutcome';
import { safePath } from './safePath';

describe('outcomeOf', () => {
  it.each([
    [200, undefined, '2xx'],
    [202, undefined, '2xx'],
    [304, undefined, '304'],
    [404, 'unknown_resource', '4xx:unknown_resource'],
    [401, 'invalid_key', '4xx:invalid_key'],
    [429, 'rate_limited', '429'],
    [200, 'rate_limited', '429'],
    [400, undefined, '4xx:jsonrpc_error'],
    [503, 'service_unavailable', '5xx'],
    [500, 'internal_error', '5xx'],
  ])('%i %s is %s', (status, code, outcome) => {
    expect(outcomeOf(status, code)).toBe(outcome);
  });

  it('gives in-band codes the status REST would answer', () => {
    expect(statusOf('rate_limited')).toBe(429);
    expect(statusOf('unknown_resource')).toBe(404);
    expect(statusOf('not_a_code')).toBe(400);
  });
});

describe('safePath', () => {
  const key = `bk_live_${'A'.repeat(40)}`;
  it('keeps the path and drops the query string', () => {
    expect(safePath('/v1/resources/products?cursor=abc&limit=2')).toBe('/v1/resources/products');
    expect(safePath('/api/mcp#x')).toBe('/api/mcp');
  });

  it('never keeps a key, in a segment or percent-encoded', () => {
    expect(safePath(`/v1/${key}/products`)).toBe('/v1/<key>/products');
    expect(safePath(`/v1/x${key.replace(/_/g, '%5F')}`)).toBe('/v1/<key>');
    expect(safePath(`/v1/resources?key=${key}`)).toBe('/v1/resources');
  });

  it('bounds its length', () => {
    expect(safePath(`/${'a'.repeat(100)}`)).toBe(`/${'a'.repeat(80)}…`);
    expect(safePath('/a'.repeat(400)).length).toBeLessThanOrEqual(256);
  });
});

import { AppError } from '@brand/shared/errors';
import { rawQueryOf } from '../../http/requestScope';
import { resourceNamed } from '../../records/resourceNamed';
import { readListQuery, validListParams } from './input';

describe('list input', () => {
  it.each([
    ['', {}],
    ['limit=1', { limit: 1 }],
    ['limit=200', { limit: 200 }],
    ['limit=50&cursor=abc.def', { limit: 50, cursor: 'abc.def' }],
    ['cursor=abc.def&limit=50', { limit: 50, cursor: 'abc.def' }],
    ['since=2026-11-01T00:00:00Z&limit=2', { limit: 2, since: '2026-11-01T00:00:00Z' }],
  ])('reads the valid query %j without zod', (query, params) => {
    expect(validListParams(query)).toEqual(params);
    // and ListQuery reads it the same
    expect(readListQuery(query)).toEqual(params);
  });

  it.each([
    'limit=0',
    'limit=201',
    'limit=1.5',
    'limit=%31',
    'limit=5&',
    'limit=5&limit=6',
    'cursor=x',
    'cursor=',
    'since=x',
    'since=2026-11-01T00:00:00+08:00',
    'nope=1',
    'limit',
  ])('leaves %j to ListQuery', (query) => {
    expect(validListParams(query)).toBeUndefined();
  });

  it("gives every other query ListQuery's answer", () => {
    expect(readListQuery('limit=%31')).toEqual({ limit: 1 });
    expect(readListQuery('limit=5&')).toEqual({ limit: 5 });
    expect(() => readListQuery('limit=0')).toThrow(AppError);
    expect(() => readListQuery('limit=5&limit=6')).toThrow(
      expect.objectContaining({ code: 'invalid_parameter' }) as Error,
    );
    expect(() => readListQuery('cursor=x')).toThrow(
      expect.objectContaining({ code: 'invalid_cursor' }) as Error,
    );
    expect(() => readListQuery('nope=1')).toThrow(
      expect.objectContaining({ code: 'invalid_parameter' }) as Error,
    );
  });

  // node:querystring stops at 1,000 pieces (empty ones count), so a parameter behind 1,000 `&`
  // was dropped unread: `limit=0` listed a default page and `cursor=x` the first page
  it('judges a parameter behind 1,000 separators instead of dropping it', () => {
    const padding = '&'.repeat(1000);
    expect(() => readListQuery(`${padding}limit=0`)).toThrow(
      expect.objectContaining({ code: 'invalid_parameter' }) as Error,
    );
    expect(() => readListQuery(`${padding}cursor=x`)).toThrow(
      expect.objectContaining({ code: 'invalid_cursor' }) as Error,
    );
    expect(() => readListQuery(`${padding}brand_id=x`)).toThrow(
      expect.objectContaining({ code: 'invalid_parameter' }) as Error,
    );
    expect(readListQuery(`${padding}limit=5`)).toEqual({ limit: 5 });
  });

  it('names the resource, or refuses it as unknown_resource', () => {
    expect(resourceNamed('links')).toBe('links');
    expect(() => resourceNamed('Links')).toThrow(
      expect.objectContaining({ code: 'unknown_resource' }) as Error,
    );
  });

  it('splits the query off a request target', () => {
    expect(rawQueryOf('/api/v1/links')).toBe('');
    expect(rawQueryOf('/api/v1/links?')).toBe('');
    expect(rawQueryOf('/api/v1/links?limit=2')).toBe('limit=2');
    // a fragment is no part of the query, as it is no part of the path (pathOf)
    expect(rawQueryOf('/api/v1/links?limit=2#frag')).toBe('limit=2');
    expect(rawQueryOf('/api/v1/links?#frag')).toBe('');
    expect(rawQueryOf('/api/v1/links#frag?limit=2')).toBe('');
  });
});

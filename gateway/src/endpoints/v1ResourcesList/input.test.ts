import { AppError } from '@brand/shared/errors';
import { commonListParams, rawQueryOf, readListQuery, resourceNamed } from './input';

describe('list input', () => {
  it.each([
    ['', {}],
    ['limit=1', { limit: 1 }],
    ['limit=200', { limit: 200 }],
  ])('reads the common query %j without zod', (query, params) => {
    expect(commonListParams(query)).toEqual(params);
  });

  it.each(['limit=0', 'limit=201', 'limit=1.5', 'limit=%31', 'limit=5&', 'cursor=x', 'since=x'])(
    'leaves %j to ListQuery',
    (query) => {
      expect(commonListParams(query)).toBeUndefined();
    },
  );

  it("gives every other query ListQuery's answer", () => {
    expect(readListQuery('limit=%31', { limit: '1' })).toEqual({ limit: 1 });
    expect(() => readListQuery('limit=0', { limit: '0' })).toThrow(AppError);
    expect(() => readListQuery('nope=1', { nope: '1' })).toThrow(
      expect.objectContaining({ code: 'invalid_parameter' }) as Error,
    );
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
  });
});

import { UsageSurface, type RefusedRequest } from '@brand/proto/access/v1/usage';
import { countTarget, logTargets, type HashedKey } from './attribution';

const HASH = 'a'.repeat(64);
const key = (over: Partial<HashedKey> = {}): HashedKey => ({
  id: 'key_own',
  brand_id: 'br_owner',
  environment: 'live',
  revoked: false,
  expiredAt: () => false,
  ...over,
});
const request = (over: Partial<RefusedRequest> = {}): RefusedRequest => ({
  at: 1,
  brand_id: '',
  key_id: '',
  key_hash: '',
  address_brand_id: '',
  method: 'GET',
  path: '/v1/resources/products',
  status: 401,
  error_code: 'invalid_key',
  request_id: 'req_1',
  surface: UsageSurface.USAGE_SURFACE_REST,
  gateway_reason: '',
  ...over,
});
const keys = (k: HashedKey) => new Map([[HASH, k]]);

describe('usage attribution', () => {
  it('counts an admitted key for its brand, a refused hash for its owner, the rest by address', () => {
    const count = { minute: 60, surface: 1, outcome: '2xx', count: 1 };
    const none = new Map<string, HashedKey>();
    expect(
      countTarget(
        { ...count, brand_id: 'br_a', key_id: 'key_a', key_hash: '', address_brand_id: '' },
        none,
      ),
    ).toEqual({ brandId: 'br_a', keyId: 'key_a' });
    expect(
      countTarget(
        { ...count, brand_id: '', key_id: '', key_hash: HASH, address_brand_id: 'br_x' },
        keys(key()),
      ),
    ).toEqual({ brandId: 'br_owner', keyId: 'key_own' });
    expect(
      countTarget(
        { ...count, brand_id: '', key_id: '', key_hash: HASH, address_brand_id: 'br_x' },
        none,
      ),
    ).toEqual({ brandId: 'br_x', keyId: '' });
    expect(
      countTarget({ ...count, brand_id: '', key_id: '', key_hash: '', address_brand_id: '' }, none),
    ).toBeUndefined();
  });

  it('gives each 401 its reason', () => {
    const at = (k: HashedKey, over: Partial<RefusedRequest> = {}) =>
      logTargets(request({ key_hash: HASH, ...over }), keys(k), 'live');
    expect(at(key({ revoked: true }))).toEqual([
      { brandId: 'br_owner', keyId: 'key_own', reason: 'revoked' },
    ]);
    expect(at(key({ expiredAt: () => true }))).toEqual([
      { brandId: 'br_owner', keyId: 'key_own', reason: 'expired' },
    ]);
    expect(at(key({ environment: 'test' }), { gateway_reason: 'wrong_environment' })).toEqual([
      { brandId: 'br_owner', keyId: 'key_own', reason: 'wrong_environment' },
    ]);
    expect(
      logTargets(request({ key_hash: HASH, address_brand_id: 'br_x' }), new Map(), 'live'),
    ).toEqual([{ brandId: 'br_x', keyId: null, reason: 'unknown_key' }]);
    expect(
      logTargets(
        request({ address_brand_id: 'br_x', gateway_reason: 'no_key', error_code: 'missing_key' }),
        new Map(),
        'live',
      ),
    ).toEqual([{ brandId: 'br_x', keyId: null, reason: 'no_key' }]);
    expect(
      logTargets(
        request({ address_brand_id: 'br_x', gateway_reason: 'malformed' }),
        new Map(),
        'live',
      ),
    ).toEqual([{ brandId: 'br_x', keyId: null, reason: 'unknown_key' }]);
  });

  it('logs another brand key twice: for its owner, and for the address brand without naming it', () => {
    const rows = logTargets(
      request({ key_hash: HASH, address_brand_id: 'br_x' }),
      keys(key({ revoked: true })),
      'live',
    );
    expect(rows).toEqual([
      { brandId: 'br_owner', keyId: 'key_own', reason: 'revoked' },
      { brandId: 'br_x', keyId: null, reason: 'other_brand' },
    ]);
  });

  it('keeps reasons to 401s and drops what no brand can own', () => {
    expect(
      logTargets(
        request({ brand_id: 'br_a', key_id: 'key_a', status: 404, error_code: 'unknown_resource' }),
        new Map(),
        'live',
      ),
    ).toEqual([{ brandId: 'br_a', keyId: 'key_a', reason: '' }]);
    expect(
      logTargets(
        request({ key_hash: HASH, status: 429, error_code: 'rate_limited' }),
        keys(key({ revoked: true })),
        'live',
      ),
    ).toEqual([{ brandId: 'br_owner', keyId: 'key_own', reason: '' }]);
    expect(logTargets(request({ gateway_reason: 'no_key' }), new Map(), 'live')).toEqual([]);
  });
});

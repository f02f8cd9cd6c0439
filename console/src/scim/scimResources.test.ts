import { etagOf, ifMatchVersion } from './scimResources';

describe('ifMatchVersion', () => {
  it('reads the version of the tags this endpoint gives, and no condition for * or none', () => {
    expect(ifMatchVersion('W/"7"')).toBe('7');
    expect(ifMatchVersion(' "12" ')).toBe('12');
    expect(ifMatchVersion(etagOf('3'))).toBe('3');
    expect(ifMatchVersion('*')).toBeUndefined();
    expect(ifMatchVersion(undefined)).toBeUndefined();
    expect(ifMatchVersion('')).toBeUndefined();
  });

  it('names a version no resource has for a tag it never gave, so the write is refused', () => {
    for (const tag of ['"abc"', 'W/7', '"7", "8"', `"${'9'.repeat(20)}"`]) {
      expect({ tag, version: ifMatchVersion(tag) }).toEqual({ tag, version: '0' });
    }
  });
});

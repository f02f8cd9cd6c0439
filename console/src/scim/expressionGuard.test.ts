import { expressionRefusal, expressionsOf } from './expressionGuard';

describe('expressionRefusal', () => {
  it('lets through what providers send, a backslash or two included', () => {
    for (const ok of [
      'userName eq "ann@corp.example"',
      'displayName eq "CORP\\\\Sales"',
      'members[value eq "scu_1"]',
      'emails[type eq "work" and value co "@corp.example"]',
    ]) {
      expect(expressionRefusal(ok)).toBeUndefined();
    }
  });

  it('refuses what would make scimmy backtrack for long: control characters, many backslashes, length', () => {
    expect(expressionRefusal(`userName eq "${'\\'.repeat(9)}`)).toBe(
      'holds more than 8 backslashes',
    );
    expect(expressionRefusal('userName eq "a\nb"')).toBe('holds a control character');
    expect(expressionRefusal('userName eq "a\u2028b"')).toBe('holds a control character');
    expect(expressionRefusal('x'.repeat(2049))).toBe('is longer than 2048 characters');
    expect(expressionRefusal('x'.repeat(2048))).toBeUndefined();
  });
});

describe('expressionsOf', () => {
  it('finds every query parameter, a search body and PATCH paths, each with its error type', () => {
    expect(
      expressionsOf('GET', '/Users', { filter: 'a', attributes: ['b', 'c'], count: '5' }, {}),
    ).toEqual([
      { scimType: 'invalidFilter', where: 'filter', value: 'a' },
      { scimType: 'invalidFilter', where: 'attributes', value: 'b' },
      { scimType: 'invalidFilter', where: 'attributes', value: 'c' },
      { scimType: 'invalidFilter', where: 'count', value: '5' },
    ]);
    expect(expressionsOf('POST', '/Users/.search', {}, { filter: 'f', count: 5 })).toEqual([
      { scimType: 'invalidFilter', where: 'filter', value: 'f' },
    ]);
    expect(expressionsOf('POST', '/Users', {}, { filter: 'not read' })).toEqual([]);
    expect(
      expressionsOf('PATCH', '/Groups/scg_1', {}, { Operations: [{ path: 'members' }, null, {}] }),
    ).toEqual([{ scimType: 'invalidPath', where: 'path', value: 'members' }]);
  });
});

import {
  alternativesOf,
  expressionRefusal,
  expressionsOf,
  isUnknownId,
  patchRefusal,
  refusalOf,
} from './expressionGuard';

describe('expressionRefusal', () => {
  it('lets through what providers send, a backslash or two included', () => {
    for (const ok of [
      'userName eq "ann@corp.example"',
      'displayName eq "CORP\\\\Sales"',
      'members[value eq "scu_1"]',
      'emails[type eq "work" and value co "@corp.example"]',
      'userName eq "a@x.test" or userName eq "b@x.test" or userName eq "c@x.test"',
      '(userType eq "Employee" or userType eq "Manager") and emails[type eq "work" or (primary eq true and value co "@example.com")].display co "Work"',
    ]) {
      expect(expressionRefusal(ok)).toBeUndefined();
    }
    expect(expressionRefusal('emails,name.givenName,members', 'attributes')).toBeUndefined();
  });

  // scimmy drops a trailing `or` and keeps `eq` without a value (an outside probe, 2026-11-30):
  // the provider would be answered for a filter it did not send.
  it('refuses a filter that ends before its last comparison or operator is complete', () => {
    for (const cut of [
      'userName eq',
      'userName eq "x" or',
      'userName eq "x" AND ',
      'emails[type eq]',
      'not',
      '(userName sw "a" or)',
    ]) {
      expect({ cut, why: expressionRefusal(cut) }).toEqual({ cut, why: 'is incomplete' });
    }
    for (const whole of ['userName pr', 'emails[type np]', 'title eq "or"', 'x eq null']) {
      expect(expressionRefusal(whole)).toBeUndefined();
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

  // records would look it up, or store it, as U+FFFD: the gRPC client sends no lone surrogate
  it('refuses a lone surrogate, in a filter and in a value a remove pastes into one', () => {
    expect(expressionRefusal('userName eq "ann\ud800"')).toBe(
      'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji)',
    );
    expect(
      refusalOf({ scimType: 'invalidValue', where: 'v', value: '\udc00', kind: 'quotedValue' }),
    ).toMatch(/^must not contain half of a character/);
    expect(expressionRefusal('displayName eq "Ünïcødé 🍕"')).toBeUndefined();
  });

  it('refuses a filter that multiplies out into more than 100 alternatives, in a list too', () => {
    const groups = (n: number) => Array(n).fill('(a pr or b pr)').join(' and ');
    expect(expressionRefusal(groups(6))).toBeUndefined();
    expect(expressionRefusal(groups(7))).toBe('multiplies out into more than 100 alternatives');
    expect(expressionRefusal(groups(30))).toBe('multiplies out into more than 100 alternatives');
    const list = Array(7).fill('emails[type eq "a" or type eq "b"]').join(',');
    expect(expressionRefusal(list, 'attributes')).toBe(
      'multiplies out into more than 100 alternatives',
    );
  });
});

describe('alternativesOf', () => {
  // Each figure is the length of the Filter scimmy 1.3.5 builds for the same text.
  it('counts as scimmy multiplies out: branches add, groups multiply with the comparisons beside them', () => {
    expect(alternativesOf('userName eq "x"')).toBe(1);
    expect(alternativesOf('a pr or b pr or c pr')).toBe(3);
    expect(alternativesOf(Array(8).fill('(a pr or b pr)').join(' and '))).toBe(256);
    const beside = `${Array(20).fill('c pr').join(' and ')} and `;
    expect(alternativesOf(`${beside}(a pr)`)).toBe(1);
    expect(alternativesOf(`${beside}(a pr or b pr)`)).toBe(40);
    expect(alternativesOf(`${beside}(a pr or b pr) and (a pr or b pr)`)).toBe(1600);
    expect(alternativesOf(`${Array(3).fill('e[a pr or b pr or c pr]').join('.')} pr`)).toBe(27);
    expect(
      alternativesOf(
        '(userType eq "Employee" or userType eq "Manager") and emails[type eq "work" or (primary eq true and value co "@example.com")].display co "Work"',
      ),
    ).toBe(4);
  });

  it('reads strings, groups and brackets as scimmy’s lexer does', () => {
    // a quoted "(" or " or " is no group and no operator
    expect(alternativesOf('a eq "(x or y)" and b eq "or"')).toBe(1);
    // operators in any case; a word that starts with one is a word
    expect(alternativesOf('a pr OR b pr Or order pr')).toBe(3);
    // an unclosed group or string: scimmy refuses it, nothing more to count
    expect(alternativesOf('(a pr or b pr')).toBe(1);
    expect(alternativesOf('a eq "x or y')).toBe(1);
  });
});

describe('isUnknownId', () => {
  it('refuses an id records never issues, in any case of the resource and with a trailing slash', () => {
    const hostile = encodeURIComponent(`x" and members[value eq "${'\\'.repeat(60)}] eq "y`);
    for (const path of [
      `/Groups/${hostile}`,
      `/users/${hostile}/`,
      `/Schemas/${hostile}`,
      `/ResourceTypes/${hostile}`,
      '/Users/scg_abc',
      '/Groups/scu_abc',
      `/Users/scu_${'a'.repeat(65)}`,
      '/Users/%E0%A4%A',
    ]) {
      expect({ path, unknown: isUnknownId(path) }).toEqual({ path, unknown: true });
    }
    for (const path of [
      '/Users',
      '/Users/',
      '/Users/scu_Ab1',
      '/groups/scg_Ab1/',
      '/Users/.search',
      '/Groups/.Search',
      '/Schemas/urn:ietf:params:scim:schemas:core:2.0:User',
      '/ResourceTypes/User',
      '/ServiceProviderConfig',
    ]) {
      expect({ path, unknown: isUnknownId(path) }).toEqual({ path, unknown: false });
    }
  });
});

describe('expressionsOf', () => {
  it('finds every query parameter, a search body and PATCH paths, each with its error type', () => {
    expect(
      expressionsOf('GET', '/Users', { filter: 'a', attributes: ['b', 'c'], count: '5' }, {}),
    ).toEqual([
      { scimType: 'invalidFilter', where: 'filter', value: 'a', kind: 'filter' },
      { scimType: 'invalidFilter', where: 'attributes', value: 'b', kind: 'attributes' },
      { scimType: 'invalidFilter', where: 'attributes', value: 'c', kind: 'attributes' },
      { scimType: 'invalidFilter', where: 'count', value: '5', kind: 'filter' },
    ]);
    expect(expressionsOf('POST', '/Users/.search', {}, { filter: 'f', count: 5 })).toEqual([
      { scimType: 'invalidFilter', where: 'filter', value: 'f', kind: 'filter' },
    ]);
    expect(
      expressionsOf('POST', '/Users/.SEARCH/', {}, { attributes: ['a', 'b'], sortBy: 's' }),
    ).toEqual([
      { scimType: 'invalidFilter', where: 'attributes', value: 'a,b', kind: 'attributes' },
      { scimType: 'invalidFilter', where: 'sortBy', value: 's', kind: 'filter' },
    ]);
    expect(expressionsOf('POST', '/Users', {}, { filter: 'not read' })).toEqual([]);
    expect(
      expressionsOf('PATCH', '/Groups/scg_1', {}, { Operations: [{ path: 'members' }, null, {}] }),
    ).toEqual([{ scimType: 'invalidPath', where: 'path', value: 'members', kind: 'filter' }]);
  });

  it('finds the keys of a path-less PATCH value, however deep, and what a remove pastes', () => {
    const found = expressionsOf(
      'PATCH',
      '/Users/scu_1',
      {},
      {
        Operations: [
          { op: 'replace', value: { active: false, name: { givenName: 'A' } } },
          { op: 'remove', path: 'members', value: [{ value: 'scu_2', n: 1, o: { p: 1 } }, 'xy'] },
        ],
      },
    );
    expect(found.map((e) => [e.scimType, e.value, e.kind])).toEqual([
      ['invalidPath', 'active', 'filter'],
      ['invalidPath', 'name', 'filter'],
      ['invalidPath', 'givenName', 'filter'],
      ['invalidPath', 'members', 'filter'],
      ['invalidPath', 'value', 'attributeName'],
      ['invalidValue', 'scu_2', 'quotedValue'],
      ['invalidPath', 'n', 'attributeName'],
      ['invalidPath', 'o', 'attributeName'],
      ['invalidValue', '', 'unquotedValue'],
      ['invalidValue', 'xy', 'quotedValue'],
    ]);
  });
});

describe('refusalOf', () => {
  it('refuses a remove’s key that is no attribute name, and a value with a quote', () => {
    const e = (kind: 'attributeName' | 'quotedValue', value: string) =>
      refusalOf({ scimType: 'invalidValue', where: 'w', value, kind });
    expect(e('attributeName', 'value')).toBeUndefined();
    expect(e('attributeName', '$ref')).toBeUndefined();
    expect(e('attributeName', 'value[value eq "x"]')).toBe('is not an attribute name');
    expect(e('quotedValue', 'CORP\\Sales')).toBeUndefined();
    expect(e('quotedValue', 'x" or y pr')).toBe('holds a quote');
  });
});

describe('patchRefusal', () => {
  it('refuses a path-less add or replace whose value is no object (scimmy answered null with a 500)', () => {
    for (const value of [null, 'x', 5, [{ active: false }], undefined]) {
      expect(patchRefusal({ Operations: [{ op: 'Add', value }] })).toEqual({
        scimType: 'invalidValue',
        detail: 'Operation 1: an add without a path takes an object as its value.',
      });
    }
    expect(
      patchRefusal({ Operations: [{ op: 'add', path: 'x', value: 1 }, { op: 'replace' }] }),
    ).toEqual({
      scimType: 'invalidValue',
      detail: 'Operation 2: a replace without a path takes an object as its value.',
    });
    expect(patchRefusal({ Operations: [{ op: 'replace', value: { active: false } }] })).toBe(
      undefined,
    );
    expect(patchRefusal({ Operations: [{ op: 'add', path: 'emails', value: null }] })).toBe(
      undefined,
    );
  });

  it('refuses more than 1000 values removed in one request', () => {
    const removing = (n: number) => ({
      Operations: [
        { op: 'Remove', path: 'members', value: Array(n).fill({ value: 'scu_1' }) },
        { op: 'remove', path: 'members', value: { value: 'scu_1' } },
      ],
    });
    expect(patchRefusal(removing(999))).toBeUndefined();
    expect(patchRefusal(removing(1000))).toEqual({
      scimType: 'invalidValue',
      detail: 'The request removes more than 1000 values; send them in several.',
    });
  });
});

import { brokenTextIn } from './brokenText';

const HALF =
  'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji)';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });

describe('brokenTextIn', () => {
  it.each([
    ['a top-level attribute', { userName: 'a\ud800@x.test' }, 'userName'],
    ['a sub-attribute', { name: { givenName: 'Bo', familyName: '\udc00' } }, 'name.familyName'],
    [
      'a multi-valued attribute',
      { emails: [{ value: 'a@x' }, { value: '\ud83d' }] },
      'emails[1].value',
    ],
    ['a list of strings', { schemas: ['urn:x', 'urn:\ud800'] }, 'schemas[1]'],
    [
      'an extension',
      { 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: '\ud800' } },
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User.department',
    ],
    ['a key', { name: { '\ud800': 'x' } }, 'an attribute name in name'],
    ['a key at the top', { '\ud800': 'x' }, 'an attribute name'],
    ['the body itself', '\ud800', ''],
  ])('finds it in %s, named as a provider names it', (_, body, where) => {
    expect(brokenTextIn(body)).toEqual({ where, why: HALF });
  });

  it.each([
    [
      'a value its path names',
      patch({ op: 'replace', path: 'displayName', value: 'A\ud800' }),
      'displayName (operation 1)',
    ],
    [
      'under a value its path names',
      patch({ op: 'add', path: 'emails', value: [{ value: 'a@x' }, { value: '\ud800' }] }),
      'emails[1].value (operation 1)',
    ],
    [
      'a path-less value, in the second operation',
      patch(
        { op: 'add', path: 'title', value: 'ok' },
        { op: 'replace', value: { name: { givenName: '\udfff' } } },
      ),
      'name.givenName (operation 2)',
    ],
    ['a path-less string value', patch({ op: 'replace', value: '\ud800' }), 'value (operation 1)'],
    ['the operation word', patch({ op: 'rep\ud800lace' }), 'op (operation 1)'],
    ['an operation that is a string', patch('\ud800'), 'operation 1'],
  ])('names a PATCH operation for %s', (_, body, where) => {
    expect(brokenTextIn(body)).toEqual({ where, why: HALF });
  });

  it('tells of the first in the order of the body', () => {
    expect(brokenTextIn({ displayName: '\ud800', name: { givenName: '\udc00' } })?.where).toBe(
      'displayName',
    );
  });

  it.each([
    [
      'whole characters: an emoji, accents, right-to-left script',
      { displayName: 'Ünïcødé 🍕 שלום' },
    ],
    // each kind's own rules stay records' (which sees these as sent, and says which)
    ['a control character or a text-direction control', { displayName: '\u202eRTL\u001b' }],
    ['numbers, booleans and null', { active: false, n: 1, x: null }],
    ['no body', undefined],
  ])('passes %s', (_, body) => {
    expect(brokenTextIn(body)).toBeUndefined();
  });

  it('walks a deeply nested body without recursion', () => {
    let deep: unknown = 'a\ud800';
    for (let i = 0; i < 20_000; i += 1) deep = [deep];
    expect(brokenTextIn({ x: deep })?.why).toBe(HALF);
  });
});

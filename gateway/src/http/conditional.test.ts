import { ifNoneMatchLists } from './conditional';

describe('ifNoneMatchLists (RFC 9110 13.1.2, weak comparison)', () => {
  const etag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc" ,"y"', true],
    ['"abcd"', false],
    ['abc', false],
    ['*', false],
    ['', false],
    ['"ab", c"', false],
  ])('%j lists it: %s', (field, expected) => {
    expect(ifNoneMatchLists(field, etag)).toBe(expected);
  });
});

import type { Request } from 'express';
import { returnPathOf, safeReturnPath, signInHref } from './returnPath';

const ORIGIN = 'https://console.test';

describe('safeReturnPath', () => {
  it.each([
    '/brands',
    '/brands/br_demo/keys',
    '/brands/br_demo/activity?actor=ann%40brand.test&since=2026-11-20+14%3A00',
    '/passkeys',
    '/brands/br_demo/activity?q=../x',
    '/brands/br_demo/keys/.well',
  ])('keeps %s', (path) => {
    expect(safeReturnPath(path)).toBe(path);
  });

  // every way a browser reads a Location as another host, or the sign-in asking again
  it.each([
    '//evil.example',
    '//evil.example/brands',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '/ /evil.example',
    'https://evil.example/brands',
    'javascript:alert(1)',
    'brands',
    '',
    '/brands#x',
    '/brands\r\nSet-Cookie: x=1',
    `/${'a'.repeat(1000)}`,
    '/sign-in',
    '/sign-in?next=/brands',
    '/sign-in/passkey',
    '/sign-out',
    // the console's routes ignore case, and a browser removes dot segments before asking
    '/SIGN-IN/abc',
    '/Sign-Out',
    '/%73ign-in/abc',
    '/./sign-in/abc',
    '/%2e/sign-in/abc',
    '/brands/../sign-in/abc',
    '/brands/%2E%2E/sign-out',
    '/brands/.%2e/x',
    '/brands/..',
    '/.//evil.example',
  ])('refuses %j', (path) => {
    expect(safeReturnPath(path)).toBeUndefined();
  });

  it('refuses anything but one string', () => {
    expect(safeReturnPath(['/brands', '/brands'])).toBeUndefined();
    expect(safeReturnPath(undefined)).toBeUndefined();
    expect(safeReturnPath({ path: '/brands' })).toBeUndefined();
  });

  it('keeps a path named like a sign-in page only when it is another page', () => {
    expect(safeReturnPath('/sign-ins')).toBe('/sign-ins');
  });
});

/** A request as the error page sees it. */
const req = (method: string, path: string, referer?: string) =>
  ({
    method,
    path: path.split('?')[0],
    originalUrl: path,
    get: (name: string) => (name.toLowerCase() === 'referer' ? referer : undefined),
  }) as unknown as Request;

describe('returnPathOf', () => {
  it("a form's page, from its Referer of the console's own origin", () => {
    const from = `${ORIGIN}/brands/br_demo/keys?new=1`;
    expect(returnPathOf(req('POST', '/brands/br_demo/keys', from), ORIGIN)).toBe(
      '/brands/br_demo/keys?new=1',
    );
  });

  it("else the brand the form belonged to, else none: never another origin's page", () => {
    const evil = 'https://evil.example/brands/br_demo/keys';
    expect(returnPathOf(req('POST', '/brands/br_demo/keys/key_1/revoke', evil), ORIGIN)).toBe(
      '/brands/br_demo',
    );
    expect(returnPathOf(req('POST', '/brands/br_demo/keys', 'not a url'), ORIGIN)).toBe(
      '/brands/br_demo',
    );
    expect(returnPathOf(req('POST', '/sessions/others/end'), ORIGIN)).toBeUndefined();
    expect(returnPathOf(req('POST', '/sessions/others/end', `${ORIGIN}//evil`), ORIGIN)).toBe(
      undefined,
    );
  });

  it('a page asked for with GET is its own return path', () => {
    expect(returnPathOf(req('GET', '/brands/br_demo/usage?range=7d'), ORIGIN)).toBe(
      '/brands/br_demo/usage?range=7d',
    );
  });
});

describe('signInHref', () => {
  it('carries the return path as one encoded parameter', () => {
    expect(signInHref('/brands/br_demo/keys?new=1')).toBe(
      '/sign-in?next=%2Fbrands%2Fbr_demo%2Fkeys%3Fnew%3D1',
    );
    expect(signInHref(undefined)).toBe('/sign-in');
  });
});

import type { Request, Response } from 'express';
import { clearReturnPath, hasReturnCookie, keepReturnPath, readReturnPath } from './returnCookie';

/** The Set-Cookie headers a call appends. */
function setCookies(write: (res: Response) => void): string[] {
  const headers: string[] = [];
  write({ append: (_name: string, value: string) => headers.push(value) } as unknown as Response);
  return headers;
}

const presenting = (cookie: string) => ({ headers: { cookie } }) as unknown as Request;

describe('the return path kept across a sign-in', () => {
  it('is a __Host- cookie of half an hour, read back as written', () => {
    const [set] = setCookies((res) => keepReturnPath(res, '/brands/br_demo/keys?new=1'));
    expect(set).toBe(
      '__Host-console_return=%2Fbrands%2Fbr_demo%2Fkeys%3Fnew%3D1; Max-Age=1800; Path=/; HttpOnly; Secure; SameSite=Lax',
    );
    const pair = set!.split(';')[0]!;
    expect(readReturnPath(presenting(`a=1; ${pair}`))).toBe('/brands/br_demo/keys?new=1');
    expect(hasReturnCookie(presenting(pair))).toBe(true);
  });

  it('is checked again when read: never another host, never unreadable', () => {
    for (const value of [
      '%2F%2Fevil.example',
      'https%3A%2F%2Fevil.example',
      '%E0%A4%A',
      '/sign-in',
    ]) {
      expect(readReturnPath(presenting(`__Host-console_return=${value}`))).toBeUndefined();
    }
    expect(readReturnPath(presenting('other=1'))).toBeUndefined();
    expect(hasReturnCookie(presenting('other=1'))).toBe(false);
  });

  it('is cleared with the same attributes', () => {
    expect(setCookies(clearReturnPath)).toEqual([
      '__Host-console_return=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax',
    ]);
  });
});

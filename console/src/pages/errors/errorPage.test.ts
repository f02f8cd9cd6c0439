import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Logger } from '@brand/shared/logger';
import { ConsoleHttpError } from '../../http/consoleHttpError';
import { errorPages, pathForLog } from './errorPage';

const ORIGIN = 'https://console.test';

/** Posts `body` to `path` of an app reading forms as the console does (32 kB), with its pages. */
async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const app = express();
  app.use(express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 50 }));
  app.post(/.*/, (_req, res) => void res.send('taken'));
  app.use(errorPages({ error: () => undefined } as unknown as Logger, ORIGIN));
  const server = app.listen(0);
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
    return { status: res.status, code: res.headers.get('x-console-error'), page: await res.text() };
  } finally {
    server.close();
  }
}

// A key name of 10,000 emoji met a bare 400 telling them to reload, which helped nothing
// (the outside probe, 2026-11-30).
describe('a form too large to read', () => {
  const pasted = `name=${encodeURIComponent('🚀'.repeat(10_000))}&environment=live`;

  it('is a 413 that says what happened and how to go on, with a link back to the form', async () => {
    const answer = await post('/brands/br_demo/keys', pasted, {
      referer: `${ORIGIN}/brands/br_demo/keys?new=1`,
    });
    expect(answer).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(answer.page).toContain('That is too much text: a form holds at most 32 kB');
    expect(answer.page).toContain('shorten the long field');
    expect(answer.page).toContain('href="/brands/br_demo/keys?new=1"');
  });

  it("links to the brand's page when the Referer is missing or of another origin", async () => {
    const asSent: Array<Record<string, string>> = [
      {},
      { referer: 'https://evil.example/brands/br_demo/keys' },
    ];
    for (const headers of asSent) {
      const answer = await post('/brands/br_demo/keys', pasted, headers);
      expect(answer.status).toBe(413);
      expect(answer.page).toContain('href="/brands/br_demo"');
      expect(answer.page).not.toContain('evil.example');
    }
    expect((await post('/sign-in', `email=${'a'.repeat(40_000)}`)).page).toContain(
      'href="/brands"',
    );
  });

  it('other unreadable forms keep their sentence', async () => {
    // over parameterLimit: body-parser's 413 too, but not a field too long
    const many = Array.from({ length: 60 }, (_, i) => `f${i}=x`).join('&');
    const answer = await post('/sign-in', many);
    expect(answer).toMatchObject({ status: 400, code: 'malformed_request' });
    expect(answer.page).toContain('The form could not be read.');
  });
});

// A failure on a path that carries a bearer token (a sign-in link, an invitation) was logged with
// the path itself: whoever read the logs held a live link (review, 2026-11-29).
describe('pathForLog', () => {
  const token = 'q1w2e3r4t5y6u7i8o9p0AsDfGhJkL_-zxcv';

  it('logs the matched route pattern, never the token in the path', () => {
    const logged = pathForLog({
      path: `/invite/${token}`,
      baseUrl: '',
      route: { path: '/invite/:token' },
    });
    expect(logged).toBe('/invite/:token');
    expect(logged).not.toContain(token);
  });

  it('masks token-long segments where no route matched', () => {
    expect(pathForLog({ path: `/sign-in/${token}`, baseUrl: '' })).toBe('/sign-in/:masked');
    expect(pathForLog({ path: '/brands/br_demo/keys', baseUrl: '' })).toBe('/brands/br_demo/keys');
  });
});

/** Posts to an app whose every form is refused for want of a session, as memberSession's is. */
async function postSignedOut(path: string, headers: Record<string, string> = {}) {
  const app = express();
  app.post(/.*/, () => {
    throw new ConsoleHttpError(401, 'not_signed_in', 'You are not signed in.', {
      href: '/sign-in',
      label: 'Sign in',
    });
  });
  app.use(errorPages({ error: () => undefined } as unknown as Logger, ORIGIN));
  const server = app.listen(0);
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers });
    const page = await res.text();
    return {
      status: res.status,
      signIn: /<a class="button" href="([^"]*)">Sign in</.exec(page)?.[1],
    };
  } finally {
    server.close();
  }
}

// After signing in from a 401 page a person landed on their brand's overview, not on the page
// whose form was refused: its Sign in kept no return path.
describe('the 401 page of a form posted without a session', () => {
  it("signs in back to the form's page", async () => {
    const answer = await postSignedOut('/brands/br_demo/keys', {
      referer: `${ORIGIN}/brands/br_demo/keys?new=1`,
    });
    expect(answer).toEqual({
      status: 401,
      signIn: '/sign-in?next=%2Fbrands%2Fbr_demo%2Fkeys%3Fnew%3D1',
    });
  });

  it("signs in back to the form's brand, never to another origin's page", async () => {
    const answer = await postSignedOut('/brands/br_demo/keys/key_1/revoke', {
      referer: 'https://evil.example/brands/br_demo/keys',
    });
    expect(answer.signIn).toBe('/sign-in?next=%2Fbrands%2Fbr_demo');
    expect((await postSignedOut('/sessions/others/end')).signIn).toBe('/sign-in');
    const doubled = await postSignedOut('/sessions/others/end', { referer: `${ORIGIN}//evil` });
    expect(doubled.signIn).toBe('/sign-in');
  });
});

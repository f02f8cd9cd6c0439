import { describe, expect, it } from '@jest/globals';
import { TEST_ADMIN_TOKEN, TEST_CONSOLE_TOKEN, TEST_INTERNAL_TOKEN } from './services';

/**
 * Which caller credential an RPC requires (docs/internals.md "Internal credentials").
 * `admin` also covers the Developers-area RPCs the console may call with a member
 * assertion: without one, the console token is refused there like any other non-admin.
 */
export type CallerLevel = 'internal' | 'admin' | 'console';

/** An RPC under test: its name, its level, and a call that would succeed when allowed. */
export type CallerAuthRpc<C> = [name: string, level: CallerLevel, call: (c: C) => Promise<unknown>];

/** Connects a client presenting `token` ('' presents none); `close` ends it. */
export type ConnectWithToken<C> = (token: string) => C & { close(): void };

/** The codes that mean "refused for the credential"; any other outcome means authorised. */
export const AUTH_FAILURES = ['unauthenticated', 'insufficient_permission'];

/** Runs `fn` with a client presenting `token`, and closes it. */
export async function withCallerToken<C>(
  connect: ConnectWithToken<C>,
  token: string,
  fn: (c: C) => Promise<string>,
): Promise<string> {
  const client = connect(token);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** The error code a call ended with, or 'ok'. */
export const callOutcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (err: { code?: string }) => err.code ?? 'error',
  );

const TOKENS: Record<CallerLevel, string> = {
  internal: TEST_INTERNAL_TOKEN,
  admin: TEST_ADMIN_TOKEN,
  console: TEST_CONSOLE_TOKEN,
};
const tokenOf = (level: CallerLevel): string => TOKENS[level];

/**
 * The caller-credential rules every gRPC service keeps (issue 7, defect 1), one describe per
 * RPC: no credential and a wrong one are `unauthenticated`; the RPC's own credential is
 * answered; an admin RPC refuses the internal (gateway) token with `insufficient_permission`,
 * and an internal RPC also answers the admin token (operators may read what they administer).
 */
export function runCallerAuthTests<C>(
  service: string,
  connect: ConnectWithToken<C>,
  rpcs: Array<CallerAuthRpc<C>>,
): void {
  const outcomeWith = (token: string, call: (c: C) => Promise<unknown>): Promise<string> =>
    withCallerToken(connect, token, (c) => callOutcome(call(c)));

  describe.each(rpcs)(`${service}%s (%s)`, (_rpc, level, call) => {
    it('refuses a caller without a credential', async () => {
      expect(await outcomeWith('', call)).toBe('unauthenticated');
    });

    it('refuses a wrong credential', async () => {
      const wrong = `${tokenOf(level).slice(0, -1)}x`;
      expect(await outcomeWith(wrong, call)).toBe('unauthenticated');
    });

    it(`answers the ${level} credential`, async () => {
      expect(AUTH_FAILURES).not.toContain(await outcomeWith(tokenOf(level), call));
    });

    if (level === 'admin') {
      it('refuses the internal (gateway) credential', async () => {
        expect(await outcomeWith(TEST_INTERNAL_TOKEN, call)).toBe('insufficient_permission');
      });
      it('refuses the console credential without a member assertion', async () => {
        expect(AUTH_FAILURES).toContain(await outcomeWith(TEST_CONSOLE_TOKEN, call));
      });
    } else if (level === 'console') {
      it('refuses the admin and internal credentials (only the console signs members in)', async () => {
        expect(await outcomeWith(TEST_ADMIN_TOKEN, call)).toBe('insufficient_permission');
        expect(await outcomeWith(TEST_INTERNAL_TOKEN, call)).toBe('insufficient_permission');
      });
    } else {
      it('also answers the admin credential (operators may read what they administer)', async () => {
        expect(AUTH_FAILURES).not.toContain(await outcomeWith(TEST_ADMIN_TOKEN, call));
      });
      it('refuses the console credential', async () => {
        expect(await outcomeWith(TEST_CONSOLE_TOKEN, call)).toBe('insufficient_permission');
      });
    }
  });
}

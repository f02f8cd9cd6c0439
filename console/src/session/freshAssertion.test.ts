import type { ConsoleClients } from '../clients/consoleClients';
import { freshAssertion, type MemberSession } from './memberSession';

const session = {
  token: 'tok',
  brand: { id: 'br_1' },
  assertion: 'first',
} as unknown as MemberSession;

/** A sessions client that hands out assertion-1, assertion-2, ... and records each call. */
function sessionsClient(answer: (n: number) => string) {
  const calls: unknown[] = [];
  const clients = {
    sessions: (_method: string, req: unknown) => {
      calls.push(req);
      return Promise.resolve({ member_assertion: answer(calls.length) });
    },
  } as unknown as ConsoleClients;
  return { clients, calls };
}

describe('freshAssertion', () => {
  afterEach(() => jest.useRealTimers());

  it("uses the session's assertion while it is young, then re-resolves it every 30 s", async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { clients, calls } = sessionsClient((n) => `assertion-${n}`);
    const next = freshAssertion(clients, session);
    expect(await next()).toBe('first');
    jest.setSystemTime(1_000_000 + 29_999);
    expect(await next()).toBe('first');
    expect(calls).toHaveLength(0);
    jest.setSystemTime(1_000_000 + 30_000);
    expect(await next()).toBe('assertion-1');
    expect(calls).toEqual([{ session_token: 'tok', brand_id: 'br_1' }]);
    jest.setSystemTime(1_000_000 + 45_000);
    expect(await next()).toBe('assertion-1');
    jest.setSystemTime(1_000_000 + 60_000);
    expect(await next()).toBe('assertion-2');
  });

  it('refuses when the member no longer stands on the brand', async () => {
    jest.useFakeTimers({ now: 0 });
    const { clients } = sessionsClient(() => '');
    const next = freshAssertion(clients, session);
    jest.setSystemTime(30_000);
    await expect(next()).rejects.toMatchObject({ status: 404 });
  });
});

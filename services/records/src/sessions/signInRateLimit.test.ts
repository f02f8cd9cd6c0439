import { createLogger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import { SignInRateLimit } from './signInRateLimit';

const log = createLogger({ service: 'test', level: 'silent' });
/** A Redis whose every command fails, as when it is unreachable. */
const downRedis = {
  eval: () => Promise.reject(new Error('Connection is closed.')),
} as unknown as Redis;

describe('SignInRateLimit while Redis is unreachable', () => {
  it('counts in the process: never unlimited', async () => {
    const limit = new SignInRateLimit(
      downRedis,
      't:',
      { perAddressAndClient: 2, perClient: 10, windowMs: 60_000 },
      log,
    );
    await limit.take('a@x.test', 'c1');
    await limit.take('a@x.test', 'c1');
    await expect(limit.take('a@x.test', 'c1')).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 60,
    });
    await expect(limit.take('b@x.test', 'c1')).resolves.toBeUndefined();
  });

  it('keeps one client from spending the address for another (issue 23)', async () => {
    const limit = new SignInRateLimit(
      downRedis,
      't:',
      { perAddressAndClient: 2, perClient: 10, windowMs: 60_000 },
      log,
    );
    await limit.take('a@x.test', 'abuser');
    await limit.take('a@x.test', 'abuser');
    await expect(limit.take('a@x.test', 'abuser')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(limit.take('a@x.test', 'member')).resolves.toBeUndefined();
  });

  it('limits one client across addresses', async () => {
    const limit = new SignInRateLimit(
      downRedis,
      't:',
      { perAddressAndClient: 5, perClient: 2, windowMs: 1_000 },
      log,
    );
    await limit.take('a@x.test', 'same');
    await limit.take('b@x.test', 'same');
    await expect(limit.take('c@x.test', 'same')).rejects.toMatchObject({ code: 'rate_limited' });
  });
});

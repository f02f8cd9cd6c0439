import { createLogger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import { WrongTokenThrottle } from './wrongTokenThrottle';

const log = createLogger({ service: 'test', level: 'silent' });
const fail = () => Promise.reject(new Error('Connection is closed.'));
/** A Redis whose every command fails, as when it is unreachable. */
const downRedis = { eval: fail, del: fail, set: fail, exists: fail } as unknown as Redis;
const TOKEN = `scim_${'a'.repeat(43)}`;

describe('WrongTokenThrottle while Redis is unreachable', () => {
  it('still counts refused tokens per address, in the process, never unlimited', async () => {
    const throttle = new WrongTokenThrottle(
      downRedis,
      't:',
      { perAddress: 2, windowMs: 60_000 },
      log,
    );
    for (let i = 0; i < 2; i++) {
      await expect(throttle.attempt('203.0.113.7', TOKEN)).resolves.toBeUndefined();
      await throttle.settle('203.0.113.7', TOKEN, 'refused');
    }
    const wait = await throttle.attempt('203.0.113.7', TOKEN);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    // another address has its own count
    await expect(throttle.attempt('198.51.100.9', TOKEN)).resolves.toBeUndefined();
  });

  it('takes back the count of an attempt records did not refuse', async () => {
    const throttle = new WrongTokenThrottle(
      downRedis,
      't:',
      { perAddress: 1, windowMs: 60_000 },
      log,
    );
    for (let i = 0; i < 3; i++) {
      await expect(throttle.attempt('2001:db8::1', TOKEN)).resolves.toBeUndefined();
      await throttle.settle('2001:db8::1', TOKEN, i % 2 ? 'accepted' : 'unanswered');
    }
    // one refusal counts
    await throttle.attempt('2001:db8::1', TOKEN);
    await throttle.settle('2001:db8::1', TOKEN, 'refused');
    // the same /64: past its bound of one refusal
    await expect(throttle.attempt('2001:db8::2', TOKEN)).resolves.toBeGreaterThan(0);
  });
});

import { createLogger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import { ScimRateLimit } from './scimRateLimit';

const log = createLogger({ service: 'test', level: 'silent' });
const TOKEN_A = `scim_${'a'.repeat(43)}`;
const TOKEN_B = `scim_${'b'.repeat(43)}`;

/** A Redis whose every command fails, as when it is unreachable; it notes the keys it was asked. */
function downRedis(keys: string[] = []): Redis {
  return {
    eval: (_script: string, _n: number, key: string) => {
      keys.push(key);
      return Promise.reject(new Error('Connection is closed.'));
    },
  } as unknown as Redis;
}

describe('ScimRateLimit', () => {
  it("refuses a token past its limit with the seconds to wait, and not another token's requests", async () => {
    const limit = new ScimRateLimit(downRedis(), 't:', { perToken: 2, windowMs: 60_000 }, log);
    await limit.take(TOKEN_A);
    await limit.take(TOKEN_A);
    await expect(limit.take(TOKEN_A)).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 60,
    });
    await expect(limit.take(TOKEN_B)).resolves.toBeUndefined();
  });

  it('keys the count by a hash of the token, never the token', async () => {
    const keys: string[] = [];
    const limit = new ScimRateLimit(downRedis(keys), 't:', { perToken: 5, windowMs: 60_000 }, log);
    await limit.take(TOKEN_A);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^t:scim:token:[0-9a-f]{32}$/);
    expect(keys[0]).not.toContain('a'.repeat(10));
  });
});

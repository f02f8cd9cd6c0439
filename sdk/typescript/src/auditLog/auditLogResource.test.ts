import { RateLimitedError } from '../errors/codeErrors';
import { errorBody } from '../testing/fetchStub';
import { testTransport } from '../testing/testTransport';
import { AuditLogResource } from './auditLogResource';

describe('AuditLogResource.all', () => {
  it('throws a Retry-After beyond maxRetryAfterSeconds at once, as the client does (README retries)', async () => {
    const { transport, requests, sleeps } = testTransport([
      { status: 429, body: errorBody('rate_limited'), headers: { 'retry-after': '3600' } },
    ]);
    const walking = (async () => {
      for await (const e of new AuditLogResource(transport).all({ after: 0 })) void e;
    })();
    await expect(walking).rejects.toBeInstanceOf(RateLimitedError);
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

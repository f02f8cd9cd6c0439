// Unit tests only: a Transport over a fetch stub, with a recorded, instant sleep.
import { DEFAULT_RETRY_TUNING } from '../http/retryPolicy';
import { Transport } from '../http/transport';
import { fetchStub, type RecordedRequest, type StubAnswer } from './fetchStub';

export function testTransport(
  script: StubAnswer[] | ((req: RecordedRequest) => StubAnswer),
  over: { maxRetries?: number; timeoutMs?: number } = {},
) {
  const stub = fetchStub(script);
  const sleeps: number[] = [];
  const transport = new Transport({
    apiKey: 'bk_live_test',
    baseUrl: 'https://api.example.test',
    timeoutMs: over.timeoutMs ?? 5_000,
    maxRetries: over.maxRetries ?? 2,
    fetch: stub.fetch,
    tuning: DEFAULT_RETRY_TUNING,
    userAgent: 'test-agent',
    random: () => 0.5,
    now: () => Date.parse('2026-11-22T10:00:00Z'),
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  return { transport, requests: stub.requests, sleeps };
}

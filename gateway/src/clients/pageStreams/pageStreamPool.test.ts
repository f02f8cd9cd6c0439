import type {
  ListRecordsPageRequest,
  ListRecordsPageResponse,
  PageCall,
  StreamRecordsPagesRequest,
} from '@brand/proto/records/v1';
import { AppError } from '@brand/shared/errors';
import { createLogger } from '@brand/shared/logger';
import { PageStreamPool } from './pageStreamPool';
import type { PageOrder, PageStreamSettings } from './poolSettings';
import type { StreamEvents, StreamTransport } from './streamTransport';

/** A stream the test drives: what the pool sent on it, and its events to fire. */
interface FakeStream {
  address: string;
  sent: StreamRecordsPagesRequest[];
  finished: boolean;
  cancelled: boolean;
  events: StreamEvents<ListRecordsPageResponse>;
}

const log = createLogger({ service: 'test', level: 'silent' });

const SETTINGS: PageStreamSettings = {
  streamsPerAddress: 2,
  maxInFlightPerStream: 4,
  maxQueued: 2,
  maxAgeMs: 60_000,
  resolveIntervalMs: 5_000,
  maxFailovers: 2,
};

const PAGE: ListRecordsPageResponse = {
  data_json: Buffer.from('[]'),
  count: 0,
  next_cursor: undefined,
  change_version: undefined,
};

type Order = PageOrder<ListRecordsPageRequest>;
type Transport = StreamTransport<ListRecordsPageRequest>;

function order(overrides: Partial<Order> = {}): Order {
  return {
    page: {
      brand_id: 'br_1',
      resource: 2,
      limit: 2,
      cursor: undefined,
      since: undefined,
      with_change_version: false,
    },
    requestId: 'req_test_0001',
    timeoutMs: 3_000,
    traceparent: '',
    tracestate: '',
    ...overrides,
  };
}

const calls = (s: FakeStream): PageCall[] =>
  s.sent.flatMap((m) => (m.kind?.$case === 'call' ? [m.kind.value] : []));
const cancels = (s: FakeStream): number[] =>
  s.sent.flatMap((m) => (m.kind?.$case === 'cancel' ? [m.kind.value.call_id] : []));
const answer = (s: FakeStream, call: PageCall, page = PAGE): void =>
  s.events.message({
    kind: {
      $case: 'answer',
      value: { call_id: call.call_id, outcome: { $case: 'page', value: page } },
    },
  });

describe('PageStreamPool', () => {
  let streams: FakeStream[];
  let addresses: string[];
  let pool: PageStreamPool<ListRecordsPageRequest, ListRecordsPageResponse>;
  const failovers = { n: 0 };
  const recycles = { n: 0 };

  const start = async (settings: Partial<PageStreamSettings> = {}): Promise<void> => {
    pool = new PageStreamPool(
      'records',
      () => Promise.resolve([...addresses]),
      (address, events): Transport => {
        const s: FakeStream = { address, sent: [], finished: false, cancelled: false, events };
        streams.push(s);
        return {
          send: (m) => s.sent.push(m),
          finish: () => (s.finished = true),
          cancel: () => (s.cancelled = true),
        };
      },
      { ...SETTINGS, ...settings },
      log,
      { failover: () => failovers.n++, recycle: () => recycles.n++ },
    );
    await jest.advanceTimersByTimeAsync(0);
    for (const s of streams) s.events.opened();
  };
  const live = (): FakeStream[] => streams.filter((s) => !s.cancelled && !s.finished);
  const busiest = (): FakeStream => streams.find((s) => calls(s).length > 0)!;

  beforeEach(() => {
    jest.useFakeTimers();
    streams = [];
    addresses = ['ipv4:10.0.0.1:50051', 'ipv4:10.0.0.2:50051'];
    failovers.n = 0;
    recycles.n = 0;
  });
  afterEach(() => {
    pool.close();
    jest.useRealTimers();
  });

  it('opens streamsPerAddress streams to every address and spreads pages over them', async () => {
    await start();
    expect(streams.map((s) => s.address).sort()).toEqual([
      'ipv4:10.0.0.1:50051',
      'ipv4:10.0.0.1:50051',
      'ipv4:10.0.0.2:50051',
      'ipv4:10.0.0.2:50051',
    ]);
    const pages = [1, 2, 3, 4].map(() => pool.page(order()));
    expect(streams.map((s) => calls(s).length)).toEqual([1, 1, 1, 1]);
    for (const s of streams) answer(s, calls(s)[0]!);
    await expect(Promise.all(pages)).resolves.toHaveLength(4);
    expect(pool.stats()).toEqual({ streamsOpen: 4, inFlight: 0, queued: 0 });
  });

  it('holds pages asked for before the first resolution until its streams open', async () => {
    let found: (addresses: string[]) => void = () => undefined;
    pool = new PageStreamPool(
      'records',
      () => new Promise((resolve) => (found = resolve)),
      (address, events): Transport => {
        const s: FakeStream = { address, sent: [], finished: false, cancelled: false, events };
        streams.push(s);
        return { send: (m) => s.sent.push(m), finish: () => undefined, cancel: () => undefined };
      },
      SETTINGS,
      log,
    );
    const page = pool.page(order());
    expect(pool.stats().queued).toBe(1);
    found(['ipv4:10.0.0.1:50051']);
    await jest.advanceTimersByTimeAsync(0);
    const s = busiest();
    answer(s, calls(s)[0]!);
    await expect(page).resolves.toBe(PAGE);
  });

  it('puts the request id, the time left and the trace context in each message', async () => {
    await start();
    pool.page(order({ traceparent: '00-abc-def-01', tracestate: 'k=v' })).catch(() => undefined);
    const call = calls(busiest())[0]!;
    expect(call).toMatchObject({
      request_id: 'req_test_0001',
      traceparent: '00-abc-def-01',
      tracestate: 'k=v',
    });
    expect(call.timeout_ms).toBeGreaterThan(2_900);
    expect(call.timeout_ms).toBeLessThanOrEqual(3_000);
    expect(call.page?.brand_id).toBe('br_1');
  });

  it('answers 503 with Retry-After when the deadline passes, and cancels the page on its stream', async () => {
    await start();
    const page = pool.page(order({ timeoutMs: 500 }));
    const settled = expect(page).rejects.toMatchObject({
      code: 'service_unavailable',
      retryAfterSeconds: 1,
    });
    await jest.advanceTimersByTimeAsync(500);
    await settled;
    const s = busiest();
    expect(cancels(s)).toEqual([calls(s)[0]!.call_id]);
    // a late answer is dropped
    answer(s, calls(s)[0]!);
    expect(pool.stats().inFlight).toBe(0);
  });

  it('cancels a page whose client went away', async () => {
    await start();
    const controller = new AbortController();
    const page = pool.page(order({ signal: controller.signal }));
    controller.abort();
    await expect(page).rejects.toBeInstanceOf(AppError);
    const s = busiest();
    expect(cancels(s)).toEqual([calls(s)[0]!.call_id]);
  });

  it('fails the pages of a broken stream over to another stream (same call id)', async () => {
    await start();
    const page = pool.page(order());
    const broken = busiest();
    const first = calls(broken)[0]!;
    broken.events.ended(new Error('connection reset'));
    const other = streams.find((s) => s !== broken && calls(s).length > 0)!;
    expect(calls(other)[0]!.call_id).toBe(first.call_id);
    answer(other, calls(other)[0]!);
    await expect(page).resolves.toBe(PAGE);
    expect(failovers.n).toBe(1);
  });

  it('answers 503 when no stream is left, after maxFailovers, never another error', async () => {
    addresses = ['ipv4:10.0.0.1:50051'];
    await start({ maxFailovers: 1 });
    const page = pool.page(order());
    const settled = expect(page).rejects.toMatchObject({ code: 'service_unavailable' });
    const gone = new Set<FakeStream>();
    const killHolder = (): void => {
      const holder = streams.find((s) => !gone.has(s) && calls(s).length > 0)!;
      gone.add(holder);
      holder.events.ended(new Error('records killed'));
    };
    killHolder(); // sent again on another stream
    expect(failovers.n).toBe(1);
    killHolder(); // no failover left
    await settled;
    expect(failovers.n).toBe(1);
    // with every stream gone (and reopening after a back-off) a page is 503 at once
    for (const s of streams) if (!gone.has(s)) s.events.ended(new Error('connection refused'));
    await expect(pool.page(order())).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('reopens a broken stream, backing off while the address refuses', async () => {
    addresses = ['ipv4:10.0.0.1:50051'];
    await start({ streamsPerAddress: 1 });
    streams[0]!.events.ended(new Error('reset'));
    expect(streams).toHaveLength(2); // at once: it had been open
    streams[1]!.events.ended(new Error('refused'));
    expect(streams).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(100);
    expect(streams).toHaveLength(3);
    streams[2]!.events.opened();
    pool.page(order()).catch(() => undefined);
    expect(calls(streams[2]!)).toHaveLength(1);
  });

  it('bounds the pages in flight per stream: more wait in a bounded queue, then 503', async () => {
    addresses = ['ipv4:10.0.0.1:50051'];
    await start({ streamsPerAddress: 1, maxInFlightPerStream: 2, maxQueued: 1 });
    const s = streams[0]!;
    const pages = [pool.page(order()), pool.page(order()), pool.page(order())];
    expect(calls(s)).toHaveLength(2);
    expect(pool.stats()).toMatchObject({ inFlight: 2, queued: 1 });
    await expect(pool.page(order())).rejects.toMatchObject({ code: 'service_unavailable' });
    answer(s, calls(s)[0]!);
    expect(calls(s)).toHaveLength(3); // the queued page went out once there was room
    answer(s, calls(s)[1]!);
    answer(s, calls(s)[2]!);
    await expect(Promise.all(pages)).resolves.toHaveLength(3);
  });

  it('replaces streams by age: the old one takes no new page and is closed once idle', async () => {
    addresses = ['ipv4:10.0.0.1:50051'];
    await start({ streamsPerAddress: 1, maxAgeMs: 10_000 });
    const old = streams[0]!;
    const page = pool.page(order({ timeoutMs: 60_000 }));
    await jest.advanceTimersByTimeAsync(13_000);
    expect(recycles.n).toBe(1);
    expect(streams).toHaveLength(2);
    const fresh = streams[1]!;
    fresh.events.opened();
    pool.page(order()).catch(() => undefined);
    expect(calls(fresh)).toHaveLength(1);
    expect(old.finished).toBe(false); // it still owes an answer
    answer(old, calls(old)[0]!);
    await expect(page).resolves.toBe(PAGE);
    expect(old.finished).toBe(true);
  });

  it('finds an address added to the target within the resolve interval, and leaves one removed', async () => {
    addresses = ['ipv4:10.0.0.1:50051'];
    await start({ streamsPerAddress: 1 });
    addresses = ['ipv4:10.0.0.2:50051'];
    await jest.advanceTimersByTimeAsync(5_000);
    const added = streams.find((s) => s.address === 'ipv4:10.0.0.2:50051');
    expect(added).toBeDefined();
    expect(streams[0]!.finished).toBe(true);
    added!.events.opened();
    pool.page(order()).catch(() => undefined);
    expect(calls(added!)).toHaveLength(1);
    expect(live().map((s) => s.address)).toEqual(['ipv4:10.0.0.2:50051']);
  });

  it('sends nothing more to a stream whose server is draining', async () => {
    addresses = ['ipv4:10.0.0.1:50051'];
    await start({ streamsPerAddress: 2 });
    const [a, b] = streams as [FakeStream, FakeStream];
    a.events.message({ kind: { $case: 'draining', value: {} } });
    expect(a.finished).toBe(true);
    for (let i = 0; i < 3; i++) pool.page(order()).catch(() => undefined);
    expect(calls(a)).toHaveLength(0);
    expect(calls(b)).toHaveLength(3);
  });

  it("gives records' failures back as the AppError it meant", async () => {
    await start();
    const page = pool.page(order());
    const s = busiest();
    s.events.message({
      kind: {
        $case: 'answer',
        value: {
          call_id: calls(s)[0]!.call_id,
          outcome: {
            $case: 'failure',
            value: {
              code: 'invalid_cursor',
              message: 'The cursor is not valid.',
              details_json: '[{"field":"cursor","message":"bad"}]',
              retry_after_seconds: 0,
            },
          },
        },
      },
    });
    await expect(page).rejects.toMatchObject({
      code: 'invalid_cursor',
      message: 'The cursor is not valid.',
      details: [{ field: 'cursor', message: 'bad' }],
    });
  });
});

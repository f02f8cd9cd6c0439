import { SpanKind, trace } from '@opentelemetry/api';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type {
  ListRecordsPageRequest,
  ListRecordsPageResponse,
  PageCall,
  StreamRecordsPagesRequest,
  StreamRecordsPagesResponse,
} from '@brand/proto/records/v1';
import { AppError } from '@brand/shared/errors';
import { classifyFailure, safeRequestId, type StreamContext } from '@brand/shared/grpc';
import type { Logger } from '@brand/shared/logger';
import type { RpcObserver } from '@brand/shared/metrics';
import { continueTrace, withSpan } from '@brand/shared/telemetry';
import type { PageSignal } from './recordService';

const tracer = trace.getTracer('records.page-streams');

/** The metric's method label of a page answered on a stream. */
const METHOD = 'StreamRecordsPages';

type PageCallStream = ServerDuplexStream<StreamRecordsPagesRequest, StreamRecordsPagesResponse>;

/**
 * One page's work, given a flag that is set once the caller stopped waiting (its time
 * passed, it cancelled, the stream broke): the same function the unary ListRecordsPage runs.
 */
export type AnswerPage = (
  req: ListRecordsPageRequest,
  signal: PageSignal,
) => Promise<ListRecordsPageResponse>;

export interface PageStreamSettings {
  /**
   * Pages one stream may have in flight here; past it a page is refused at once with
   * service_unavailable (the gateway bounds its own side lower, so this only meets a
   * misbehaving caller: memory stays bounded either way).
   */
  maxInFlight: number;
  metrics?: RpcObserver;
}

/**
 * The records side of StreamRecordsPages (proto/brand/records/v1): every open stream, each
 * answering its PageCalls concurrently, in the order they finish. A page is not started once
 * its time budget passed or it was cancelled, and its answer is dropped then; the function
 * doing the work reads the page's flag, so it stops between queries (recordService.ts).
 * `drain()` (shutdown) tells every stream to take no more pages, answers what they hold, and
 * ends them with OK, so the gateway moves its traffic to the other replicas without one
 * failed page.
 */
export class PageStreams {
  private readonly open = new Set<PageStream>();
  private draining = false;

  constructor(
    private readonly answer: AnswerPage,
    private readonly settings: PageStreamSettings,
  ) {}

  /** The stream handler (rpc.internalStream's): the caller is already authenticated. */
  readonly serve = (call: PageCallStream, ctx: StreamContext): void => {
    const stream = new PageStream(call, ctx.log, this.answer, this.settings, () =>
      this.open.delete(stream),
    );
    this.open.add(stream);
    if (this.draining) void stream.drain();
  };

  /**
   * Ends every stream gracefully: each is told to send no more pages (StreamDraining), answers
   * what it holds, and ends once the caller half-closed. Resolves when all have ended or after
   * `timeoutMs` (the server's shutdown then cuts the rest off).
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    const ended = [...this.open].map((s) => s.drain());
    // bounded: the server's shutdown cuts off what is still open after it
    await Promise.race([
      Promise.all(ended),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }
}

/** One page under way: the flag its work reads (set when it is withdrawn) and the timer of its time budget. */
interface Running {
  signal: { aborted: boolean };
  timer: NodeJS.Timeout;
}

class PageStream {
  private readonly running = new Map<number, Running>();
  private callerDone = false;
  private closed = false;
  private draining = false;
  private readonly ended: Promise<void>;
  private markEnded!: () => void;

  constructor(
    private readonly call: PageCallStream,
    private readonly log: Logger,
    private readonly answer: AnswerPage,
    private readonly settings: PageStreamSettings,
    private readonly onEnded: () => void,
  ) {
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
    call.on('data', (message: StreamRecordsPagesRequest) => this.receive(message));
    // The caller half-closed: answer what is running, then end.
    call.on('end', () => {
      this.callerDone = true;
      this.endWhenIdle();
    });
    // The caller went away or the connection broke: nobody waits for any of it.
    call.on('cancelled', () => this.abandon());
    call.on('error', () => this.abandon());
    call.on('close', () => this.abandon());
  }

  /** Sends StreamDraining once; the stream ends when the caller half-closes and it is idle. */
  drain(): Promise<void> {
    if (!this.draining && !this.closed) {
      this.draining = true;
      this.call.write({ kind: { $case: 'draining', value: {} } });
    }
    return this.ended;
  }

  private receive(message: StreamRecordsPagesRequest): void {
    const kind = message.kind;
    if (kind?.$case === 'cancel') {
      this.stop(kind.value.call_id);
    } else if (kind?.$case === 'call') {
      this.start(kind.value);
    }
  }

  private start(page: PageCall): void {
    const id = page.call_id;
    if (this.running.has(id)) return; // a duplicate id: the first one answers
    if (this.running.size >= this.settings.maxInFlight) {
      this.send(id, {
        failure: new AppError(
          'service_unavailable',
          'Too many pages in flight on this stream; retry shortly.',
          { retryAfterSeconds: 1 },
        ),
      });
      return;
    }
    const signal = { aborted: false };
    const budget = page.timeout_ms > 0 ? page.timeout_ms : 1;
    const timer = setTimeout(() => this.stop(id), budget);
    this.running.set(id, { signal, timer });
    void this.run(page, signal).finally(() => {
      clearTimeout(timer);
      this.running.delete(id);
      this.endWhenIdle();
    });
  }

  private async run(page: PageCall, signal: PageSignal): Promise<void> {
    const started = performance.now();
    const requestId = safeRequestId(page.request_id);
    const parent = continueTrace({ traceparent: page.traceparent, tracestate: page.tracestate });
    const span = { kind: SpanKind.SERVER, attributes: { 'rpc.method': 'ListRecordsPage' } };
    const outcome = await withSpan(tracer, 'ListRecordsPage (page stream)', span, parent, () =>
      this.answer(page.page ?? emptyRequest(), signal),
    ).then(
      (response) => ({ response }),
      (err: unknown) => ({ failure: classifyFailure(err) }),
    );
    if (signal.aborted) {
      this.settings.metrics?.observe(METHOD, 'cancelled', (performance.now() - started) / 1000);
      return; // its caller stopped waiting: the answer would be dropped there anyway
    }
    const code = 'failure' in outcome ? outcome.failure.code : 'ok';
    this.settings.metrics?.observe(METHOD, code, (performance.now() - started) / 1000);
    if ('failure' in outcome && (code === 'internal_error' || code === 'service_unavailable')) {
      const failure = outcome.failure;
      this.log.error({ request_id: requestId, err: failure.cause ?? failure }, failure.message);
    }
    this.send(page.call_id, outcome);
  }

  /** Withdraws one page: it stops between queries and answers nothing. */
  private stop(id: number): void {
    const running = this.running.get(id);
    if (!running) return;
    clearTimeout(running.timer);
    running.signal.aborted = true;
    this.running.delete(id);
    this.endWhenIdle();
  }

  private send(
    id: number,
    outcome: { response: ListRecordsPageResponse } | { failure: AppError },
  ): void {
    if (this.closed) return;
    this.call.write({
      kind: {
        $case: 'answer',
        value: {
          call_id: id,
          outcome:
            'response' in outcome
              ? { $case: 'page', value: outcome.response }
              : { $case: 'failure', value: pageFailureOf(outcome.failure) },
        },
      },
    });
  }

  private endWhenIdle(): void {
    if (this.closed || !this.callerDone || this.running.size > 0) return;
    this.closed = true;
    this.call.end();
    this.finish();
  }

  private abandon(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.running.keys()]) this.stop(id);
    this.finish();
  }

  private finish(): void {
    this.onEnded();
    this.markEnded();
  }
}

/** The public vocabulary of a failure, as a unary call carries it in trailing metadata. */
function pageFailureOf(err: AppError) {
  return {
    code: err.code,
    message: err.message,
    details_json: err.details === undefined ? '' : JSON.stringify(err.details),
    retry_after_seconds: err.retryAfterSeconds ?? 0,
  };
}

/** A PageCall without its page: the handler refuses it as ListRecordsPage would. */
function emptyRequest(): ListRecordsPageRequest {
  return {
    brand_id: '',
    resource: 0,
    limit: undefined,
    cursor: undefined,
    since: undefined,
    with_change_version: false,
    id: undefined,
  };
}

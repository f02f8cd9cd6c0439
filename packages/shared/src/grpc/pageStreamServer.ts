import { SpanKind, trace } from '@opentelemetry/api';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { RpcObserver } from '../metrics';
import { continueTrace, withSpan } from '../telemetry';
import type { StreamContext } from './bidiStream';
import { classifyFailure, logFailure } from './failure';
import { safeRequestId } from '../grpcClient/metadata';

const tracer = trace.getTracer('page-streams');

/** The flag a page's work reads: set once its caller stopped waiting. */
export interface PageSignal {
  readonly aborted: boolean;
}

/**
 * One page's work, given a flag that is set once the caller stopped waiting (its time
 * passed, it cancelled, the stream broke): the same function the unary RPC runs.
 */
export type AnswerPage<Req, Res> = (req: Req, signal: PageSignal) => Promise<Res>;

/** A page asked for on a stream (records' PageCall, the feed's FeedPageCall). */
export interface PageCallMessage<Req> {
  call_id: number;
  request_id: string;
  timeout_ms: number;
  traceparent: string;
  tracestate: string;
  page: Req | undefined;
}

/** The public vocabulary of a failure, as a unary call carries it in trailing metadata. */
export interface PageFailureMessage {
  code: string;
  message: string;
  details_json: string;
  retry_after_seconds: number;
}

/**
 * The caller's messages on every page-stream RPC (StreamRecordsPagesRequest,
 * StreamFeedPagesRequest, as ts-proto writes them): a page to answer, or one to withdraw. The
 * RPCs are written message for message alike, so one shape serves both.
 */
export interface PageStreamRequest<Req> {
  kind:
    | { $case: 'call'; value: PageCallMessage<Req> }
    | { $case: 'cancel'; value: { call_id: number } }
    | undefined;
}

/** A page's outcome: the page, or the failure the unary RPC would have ended with. */
export type PageOutcomeMessage<Res> =
  { $case: 'page'; value: Res } | { $case: 'failure'; value: PageFailureMessage } | undefined;

/** The server's messages: one page's outcome, or the notice that it takes no more. */
export interface PageStreamResponse<Res> {
  kind:
    | { $case: 'answer'; value: { call_id: number; outcome: PageOutcomeMessage<Res> } }
    | { $case: 'draining'; value: object }
    | undefined;
}

/** What names one page-stream RPC's pages and what an empty call means. */
export interface PageStreamNames<Req> {
  /** The stream's RPC, as metrics label it (e.g. "StreamRecordsPages"). */
  method: string;
  /** The unary RPC each page stands for, as spans name it (e.g. "ListRecordsPage"). */
  pageMethod: string;
  /** A call without its page: answered as the unary RPC answers an empty request. */
  emptyRequest(): Req;
}

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
 * The server side of a page-stream RPC (docs/internals.md "The page hop"): every open stream,
 * each answering its page calls concurrently, in the order they finish. A page is not started
 * once its time budget passed or it was cancelled, and its answer is dropped then; the
 * function doing the work reads the page's flag, so it stops between queries. `drain()`
 * (shutdown) tells every stream to take no more pages, answers what they hold, and ends them
 * with OK, so the gateway moves its traffic to the other replicas without one failed page.
 */
export class PageStreams<Req, Res> {
  private readonly open = new Set<PageStream<Req, Res>>();
  private draining = false;

  constructor(
    private readonly names: PageStreamNames<Req>,
    private readonly answer: AnswerPage<Req, Res>,
    private readonly settings: PageStreamSettings,
  ) {}

  /** The stream handler (rpc.internalStream's): the caller is already authenticated. */
  readonly serve = (
    call: ServerDuplexStream<PageStreamRequest<Req>, PageStreamResponse<Res>>,
    ctx: StreamContext,
  ): void => {
    const stream = new PageStream(call, ctx.log, this.names, this.answer, this.settings, () =>
      this.open.delete(stream),
    );
    this.open.add(stream);
    if (this.draining) void stream.drain();
  };

  /**
   * Ends every stream gracefully: each is told to send no more pages, answers what it holds,
   * and ends once the caller half-closed. Resolves when all have ended or after `timeoutMs`
   * (the server's shutdown then cuts the rest off).
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

class PageStream<Req, Res> {
  private readonly running = new Map<number, Running>();
  private callerDone = false;
  private closed = false;
  private draining = false;
  private readonly ended: Promise<void>;
  private markEnded!: () => void;

  constructor(
    private readonly call: ServerDuplexStream<PageStreamRequest<Req>, PageStreamResponse<Res>>,
    private readonly log: Logger,
    private readonly names: PageStreamNames<Req>,
    private readonly answer: AnswerPage<Req, Res>,
    private readonly settings: PageStreamSettings,
    private readonly onEnded: () => void,
  ) {
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
    call.on('data', (message: PageStreamRequest<Req>) => this.receive(message));
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

  /** Sends the drain notice once; the stream ends when the caller half-closes and it is idle. */
  drain(): Promise<void> {
    if (!this.draining && !this.closed) {
      this.draining = true;
      this.call.write({ kind: { $case: 'draining', value: {} } });
    }
    return this.ended;
  }

  private receive(message: PageStreamRequest<Req>): void {
    const kind = message.kind;
    if (kind?.$case === 'cancel') this.stop(kind.value.call_id);
    else if (kind?.$case === 'call') this.start(kind.value);
  }

  private start(page: PageCallMessage<Req>): void {
    const id = page.call_id;
    if (this.running.has(id)) return; // a duplicate id: the first one answers
    if (this.running.size >= this.settings.maxInFlight) {
      const busy = new AppError(
        'service_unavailable',
        'Too many pages in flight on this stream; retry shortly.',
        { retryAfterSeconds: 1 },
      );
      this.send(id, { $case: 'failure', value: pageFailureOf(busy) });
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

  private async run(page: PageCallMessage<Req>, signal: PageSignal): Promise<void> {
    const started = performance.now();
    const requestId = safeRequestId(page.request_id);
    const parent = continueTrace({ traceparent: page.traceparent, tracestate: page.tracestate });
    const { method, pageMethod } = this.names;
    const span = { kind: SpanKind.SERVER, attributes: { 'rpc.method': pageMethod } };
    const outcome = await withSpan(tracer, `${pageMethod} (page stream)`, span, parent, () =>
      this.answer(page.page ?? this.names.emptyRequest(), signal),
    ).then(
      (response) => ({ page: response }),
      (err: unknown) => ({ error: classifyFailure(err) }),
    );
    if (signal.aborted) {
      this.settings.metrics?.observe(method, 'cancelled', (performance.now() - started) / 1000);
      return; // its caller stopped waiting: the answer would be dropped there anyway
    }
    const code = 'error' in outcome ? outcome.error.code : 'ok';
    this.settings.metrics?.observe(method, code, (performance.now() - started) / 1000);
    if ('error' in outcome) {
      const failure = outcome.error;
      logFailure(this.log, failure, { request_id: requestId });
      this.send(page.call_id, { $case: 'failure', value: pageFailureOf(failure) });
    } else {
      this.send(page.call_id, { $case: 'page', value: outcome.page });
    }
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

  private send(id: number, outcome: PageOutcomeMessage<Res>): void {
    if (this.closed) return;
    this.call.write({ kind: { $case: 'answer', value: { call_id: id, outcome } } });
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
function pageFailureOf(err: AppError): PageFailureMessage {
  return {
    code: err.code,
    message: err.message,
    details_json: err.details === undefined ? '' : JSON.stringify(err.details),
    retry_after_seconds: err.retryAfterSeconds ?? 0,
  };
}

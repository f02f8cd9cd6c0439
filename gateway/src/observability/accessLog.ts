import type { IncomingMessage, ServerResponse } from 'node:http';
import { protocolRefusalOf, type ProtocolRefusal } from '@brand/shared/httpServer';
import { levelValue, type LevelWithSilent, type LineSink } from '@brand/shared/logger';
import { isTelemetryRunning, traceFields } from '@brand/shared/telemetry';
import { safePath } from '../usage/safePath';

/** What the access line names besides the request itself; read when the response closes. */
export interface LogLocals {
  requestId?: string;
  brandId?: string;
}

/**
 * Status 499 (nginx's "client closed request"): the connection closed before any answer was
 * sent, by the client or cut by the server. Not a status any client received; the line once
 * said 200, the status a response object starts with.
 */
const CLOSED_UNANSWERED = 499;

/**
 * The status the request was answered with: the app's once its headers were sent, the HTTP
 * layer's when it cut the request (a body stalled past the deadline: 408, written by
 * createPublicHttpServer), else CLOSED_UNANSWERED.
 */
function statusAnswered(res: ServerResponse, refusal: ProtocolRefusal | undefined): number {
  if (res.writableFinished || res.headersSent) return res.statusCode;
  return refusal?.status ?? CLOSED_UNANSWERED;
}

/**
 * The one log line of a request, written when its response closes (the request prelude calls
 * it for every request, whichever path answered): method, path without the query, status,
 * duration in ms, request id and brand; `request aborted` (warn) when the client went away
 * first (status 499 when nothing had been sent: CLOSED_UNANSWERED), `request refused by the
 * HTTP layer` (warn, with the status and code it was answered with) when Node's deadline cut
 * it, `request completed` at error for a 5xx and at info otherwise. Headers and bodies are
 * never logged, so the Authorization header (the key) can never reach a log. `locals` is read
 * at close time (the brand is known only after admission).
 *
 * The line is the service's JSON log format (pino's: level label, ISO time, service, the trace
 * ids while tracing, the fields, msg), built here from its fixed fields instead of through a
 * pino logger: a pino line took 3.3 µs against 1.4 µs measured alone, and the access line,
 * the request metric and usage counting together were about 9 % of the gateway's CPU per
 * page on the walk (BENCHMARKS.md, issue 25). Strings the client controls (method, path) are
 * JSON-escaped like every other value. Lines go to a batching sink (createBatchedStdout):
 * one write() per request was 7 % of the gateway's CPU.
 */
export class AccessLog {
  private readonly threshold: number;
  private readonly service: string;
  private readonly sink: LineSink;

  constructor(opts: { service: string; level: LevelWithSilent; sink: LineSink }) {
    this.threshold = levelValue(opts.level);
    this.service = JSON.stringify(opts.service);
    this.sink = opts.sink;
  }

  write(req: IncomingMessage, res: ServerResponse, locals: LogLocals, ms: number): void {
    const aborted = !res.writableFinished;
    const refusal = aborted ? protocolRefusalOf(res) : undefined;
    const status = statusAnswered(res, refusal);
    const level = aborted ? 'warn' : status >= 500 ? 'error' : 'info';
    if (levelValue(level) < this.threshold) return;
    // express's originalUrl is the raw request target too (routers rewrite only req.url); logged
    // as the request log keeps it: no query, and a key pasted into the path masked (SECURITY.md
    // "What is logged"; the whole path was written once, key and all)
    const path = safePath((req as { originalUrl?: string }).originalUrl ?? req.url);
    let trace = '';
    if (isTelemetryRunning()) {
      const ids = traceFields();
      if (ids.trace_id !== undefined)
        trace = `"trace_id":"${ids.trace_id}","span_id":"${ids.span_id}",`;
    }
    const brand =
      locals.brandId === undefined ? '' : `,"brand_id":${JSON.stringify(locals.brandId)}`;
    const requestId =
      locals.requestId === undefined ? '' : `,"request_id":${JSON.stringify(locals.requestId)}`;
    this.sink.write(
      `{"level":"${level}","time":"${new Date().toISOString()}","service":${this.service},${trace}` +
        `"method":${JSON.stringify(req.method ?? '')},"path":${JSON.stringify(path)},` +
        `"status":${status},"ms":${Math.round(ms * 100) / 100}${requestId}${brand},` +
        (refusal ? `"code":"${refusal.code}",` : '') +
        `"msg":"${refusal ? 'request refused by the HTTP layer' : aborted ? 'request aborted' : 'request completed'}"}\n`,
    );
  }
}

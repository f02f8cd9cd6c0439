import { createSecureContext, rootCertificates } from 'node:tls';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { request } from 'undici';
import { withSpan } from '@brand/shared/telemetry';
import { pinnedLookup } from '@brand/shared/egress';
import {
  excerptOf,
  keptHeaders,
  readBounded,
  storableText,
  type ResponseDetail,
} from './responseBody';
import { AttemptDeadline } from './attemptDeadline';
import { describeNoResponse, type ErrorClass } from './sendErrors';
import { ReceiverConnections } from './receiverConnections';
import { UrlVerdicts } from './urlVerdicts';

/** The outcome of one HTTP attempt; never thrown. */
export interface SendResult {
  ok: boolean;
  /** The HTTP status, undefined when no response came. */
  status: number | undefined;
  errorClass: ErrorClass | undefined;
  /** For people: "503 from the receiver", "connection refused by 203.0.113.7:443". */
  error: string | undefined;
  /** At most 200 characters of the response body or the error message. */
  excerpt: string | undefined;
  /** What came back (headers that matter, the first 4 KB); undefined when no response came. */
  response: ResponseDetail | undefined;
  retryAfter: string | undefined;
  /** Timeouts count as overload (at least 60 s before the next attempt). */
  timedOut: boolean;
  durationMs: number;
}

export interface SenderOptions {
  allowLoopback: boolean;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** PEM of an extra CA to trust besides the system's (WEBHOOK_EXTRA_CA_FILE). */
  extraCa?: string | undefined;
  /** Receivers (origins) whose keep-alive connections are kept at most (receiverConnections.ts). */
  keptReceivers: number;
}

const tracer = trace.getTracer('webhooks.sender');

/**
 * Sends deliveries: HTTPS POST over keep-alive connections, each receiver origin's own, for the
 * receivers delivered to lately (receiverConnections.ts), whose sockets resolve names with
 * pinnedLookup (every address checked, the checked one used). The URL rules hold at
 * every attempt (their verdict is remembered per URL text; IP literals never reach the
 * lookup). Redirects are never followed: a 3xx is a failure. Any 2xx is success.
 *
 * Each request is an HTTP CLIENT span (undici is not covered by the HTTP instrumentation),
 * child of the attempt's span, with the method, host, port, status and error type: never
 * the URL's path or query, which may hold a receiver's token (chat webhook URLs do). No
 * trace header is sent: receivers are third parties and the signed headers of docs/contract.md#delivery-request
 * are the whole contract; our trace ids stay ours.
 */
export class Sender {
  private readonly connections: ReceiverConnections;
  /** The URL rules' verdict on each receiver URL, applied once per URL text (urlVerdicts.ts). */
  private readonly urls: UrlVerdicts;

  constructor(private readonly opts: SenderOptions) {
    this.urls = new UrlVerdicts(opts.allowLoopback);
    this.connections = new ReceiverConnections(
      {
        connect: {
          timeout: opts.connectTimeoutMs,
          lookup: pinnedLookup(opts.allowLoopback),
          // One context for every connection: given as `ca`, the ~140 root certificates
          // plus the extra CA were parsed again for each new TLS connection (8 % of the
          // worker's CPU in the S6 benchmark, which opens connections as load rises).
          ...(opts.extraCa
            ? { secureContext: createSecureContext({ ca: [...rootCertificates, opts.extraCa] }) }
            : {}),
        },
        headersTimeout: opts.totalTimeoutMs,
        bodyTimeout: opts.totalTimeoutMs,
        keepAliveTimeout: 4_000,
      },
      opts.keptReceivers,
    );
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = Date.now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({
      ...r,
      durationMs: Date.now() - started,
    });
    const verdict = this.urls.of(url);
    if (!verdict.ok)
      return done({
        ok: false,
        status: undefined,
        errorClass: 'invalid_url',
        error: verdict.refusal,
        excerpt: undefined,
        response: undefined,
        retryAfter: undefined,
        timedOut: false,
      });
    return withSpan(
      tracer,
      'POST',
      { kind: SpanKind.CLIENT, attributes: verdict.attributes },
      context.active(),
      async (span) => traced(span, await this.post(verdict.url, headers, body, done)),
    );
  }

  private async post(
    url: URL,
    headers: Record<string, string>,
    body: string,
    done: (r: Omit<SendResult, 'durationMs'>) => SendResult,
  ): Promise<SendResult> {
    const deadline = new AttemptDeadline(this.opts.totalTimeoutMs);
    const connection = this.connections.lease(url);
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: connection.dispatcher,
        signal: deadline,
      });
      const read = await readBounded(res.body, headerValue(res.headers['content-length']));
      const text = storableText(read.kept);
      const response: ResponseDetail = {
        headers: keptHeaders(res.headers),
        body: text,
        truncated: read.truncated,
        bytes: read.bytes,
      };
      const excerpt = excerptOf(text);
      const status = res.statusCode;
      const retryAfter = headerValue(res.headers['retry-after']);
      if (status >= 200 && status < 300)
        return done({
          ok: true,
          status,
          errorClass: undefined,
          error: undefined,
          excerpt,
          response,
          retryAfter,
          timedOut: false,
        });
      const redirect = status >= 300 && status < 400;
      return done({
        ok: false,
        status,
        errorClass: redirect ? 'redirect' : 'http_status',
        error: redirect
          ? `${status} redirect from the receiver (redirects are not followed)`
          : `${status} from the receiver`,
        excerpt,
        response,
        retryAfter,
        timedOut: false,
      });
    } catch (err) {
      const c = describeNoResponse(err, url, {
        connectMs: this.opts.connectTimeoutMs,
        totalMs: this.opts.totalTimeoutMs,
      });
      return done({
        ok: false,
        status: undefined,
        ...c,
        excerpt: excerptOf(c.error),
        response: undefined,
        retryAfter: undefined,
      });
    } finally {
      deadline.clear();
      // the answer is read (or the attempt ended without one): the next attempt may use it
      connection.release();
    }
  }

  /** Closes every connection at once, ending attempts still in flight (shutdown). */
  close(): Promise<void> {
    return this.connections.destroy();
  }
}

/** Puts an attempt's result on its HTTP span: a non-2xx or no answer is an error. */
function traced(span: Span, r: SendResult): SendResult {
  if (r.status !== undefined) span.setAttribute('http.response.status_code', r.status);
  if (!r.ok) {
    const errorType = r.status !== undefined ? String(r.status) : (r.errorClass ?? 'error');
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: r.error });
  }
  return r;
}

const headerValue = (v: string | string[] | undefined): string | undefined =>
  Array.isArray(v) ? v[0] : v;

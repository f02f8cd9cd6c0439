import type { IncomingMessage, ServerResponse } from 'node:http';
import { safeRequestId } from '@brand/shared/grpc';
import { ambiguousHeaderError, closeWhenDraining } from '@brand/shared/httpServer';
import { newId } from '@brand/shared/ids';
import type { Logger } from '@brand/shared/logger';
import type { ErrorAnswer } from '../http/errorHandler';
import type { RequestScope } from '../http/requestScope';
import type { AccessLog } from '../observability/accessLog';
import type { GatewayMetrics } from '../observability/metrics';
import type { UsageRecorder } from '../usage/usageRecorder';

export interface PreludeDeps {
  log: Logger;
  metrics: GatewayMetrics;
  /** Where the access line of each request goes; undefined when ACCESS_LOG is off. */
  accessLog: AccessLog | undefined;
  /** False once shutdown has begun (the same flag /readyz reports). */
  health: { accepting: boolean };
  /** How a request the prelude refuses is answered (the endpoints' error formats). */
  refuse: ErrorAnswer;
  /** Usage counting (issue 26): absent in tests that do not count. */
  usage?: UsageRecorder;
}

/** The steps of the prelude for one request: its scope, or undefined when it answered itself. */
export type RequestPrelude = (
  req: IncomingMessage,
  res: ServerResponse,
) => RequestScope | undefined;

/**
 * What every request of the public listener goes through, once, before an endpoint sees it,
 * whether a lean path or express answers it (app.ts runs it ahead of both, so a step added
 * here runs everywhere). In order:
 * 1. once shutdown has begun, `Connection: close`, so keep-alive clients (a balancer probing
 *    /readyz, SDK clients) leave after this request instead of holding the process until the
 *    grace period kills it mid-request;
 * 2. the request id: the caller's X-Request-Id when bounded and log-safe, else a new one;
 *    echoed in X-Request-Id, written in every log line and error body, sent to the services;
 * 3. headers on every answer: nothing may be cached by a shared cache (one brand's data, or a
 *    refusal naming a key; public documents relax Cache-Control), no browser may sniff JSON
 *    into something executable;
 * 4. an answer given before the request's body was read closes the connection (a 401 before
 *    an upload, a 413): Node would otherwise keep draining the body to reuse the connection,
 *    so a client sending a byte a second could hold it until the request deadline;
 * 5. the access line, the request metric and usage counting (usage/usageRecorder.ts: a
 *    counter in memory, flushed to records off the request path), when the response is done;
 * 6. a request with two Authorization or two Host headers is refused (400).
 * Admission (the key, then the brand's budget: prelude/admission.ts) comes next, in each
 * endpoint, since endpoints price and answer it differently (the OpenAPI file charges the
 * client address; MCP charges per message and answers a spent budget as a JSON-RPC error).
 */
export function createRequestPrelude(deps: PreludeDeps): RequestPrelude {
  return (req, res) => {
    closeWhenDraining(deps.health, res);
    const scope: RequestScope = {
      requestId: safeRequestId(req.headers['x-request-id']) ?? newId('request'),
    };
    (res as { locals?: RequestScope }).locals = scope;
    res.setHeader('X-Request-Id', scope.requestId);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    closeWhenBodyUnread(req, res);
    whenDone(deps, req, res, scope);
    const ambiguous = ambiguousHeaderError(req.rawHeaders);
    if (ambiguous !== undefined) {
      deps.refuse(req, res, ambiguous);
      return undefined;
    }
    return scope;
  };
}

/**
 * Step 5, on one 'close' listener per request (a response closes once, after 'finish' or when
 * the client went away first): the access line for every request; the metric and usage count
 * for the finished ones.
 */
function whenDone(
  deps: PreludeDeps,
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
): void {
  const started = performance.now();
  // 'on', not 'once': a response closes once, and once's wrapper is one more object a request
  res.on('close', () => {
    const ms = performance.now() - started;
    deps.accessLog?.write(req, res, scope, ms);
    if (!res.writableFinished) return;
    deps.metrics.observeRequest(req, res, scope, ms / 1e3);
    deps.usage?.observe(req, res, scope);
  });
}

/** Step 4: `Connection: close` on an answer whose request body was not (fully) read. */
function closeWhenBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res);
  res.writeHead = ((...args: Parameters<typeof writeHead>) => {
    if (!req.complete) res.setHeader('Connection', 'close');
    return writeHead(...args);
  }) as typeof res.writeHead;
}

import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { safeRequestId } from '@brand/shared/grpc';
import { httpStatusOf, type AppError } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import type { Logger } from '@brand/shared/logger';
import { isResourceName, parseLimitString, type ResourceName } from '@brand/shared/resources';
import { rateLimitedError, type AccessGate } from '../auth/accessGate';
import type { ApiIdentity } from '../auth/identity';
import type { RecordsApi } from '../clients/recordsClient';
import { logWhenClosed, type LogLocals } from '../observability/accessLog';
import type { GatewayMetrics } from '../observability/metrics';
import { listPage, type PageJson } from '../records/listPage';
import type { ListParams } from '../records/listParams';
import { answerFor } from './errorHandler';
import { errorBody, setErrorHeaders } from './errorResponse';

export interface LeanListDeps {
  gate: AccessGate;
  records: RecordsApi;
  metrics: GatewayMetrics;
  log: Logger;
  accessLog: boolean;
}

/** The route label express's router gives this route; the lean path reports the same. */
const ROUTE = '/api/v1/:resource';
const PREFIX = '/api/v1/';
const JSON_TYPE = 'application/json; charset=utf-8';

/** A request the lean path takes: everything admission and the page need, decided up front. */
interface LeanRequest {
  identity: ApiIdentity;
  resource: ResourceName;
  params: ListParams;
}

/**
 * `GET /api/v1/{resource}` served by plain node:http ahead of express, for the requests a
 * busy integration sends all day: a key the gateway already knows, one of the six resource
 * names spelled exactly, no query or only a valid `limit`, no body, one Authorization and
 * one Host header. Express's router, response object and middleware chain were about a
 * third of the gateway's CPU per page (BENCHMARKS.md); this path does the same steps once,
 * in the same order, with the same headers, bodies, log line and metrics:
 * request id, security headers, the brand's budget (one Redis script per request, the
 * RateLimit headers), one gRPC call, the page's bytes as the records service rendered them.
 *
 * Anything else (a first request of a key, a refusal before admission, an unknown resource,
 * another query, another method, a duplicate header) is decided synchronously here,
 * before anything is written or charged, and handed to express unchanged, which answers it
 * exactly as before. So behaviour has one definition: express's routes; this path only
 * skips their machinery on the common success path and errors after admission.
 */
export function withLeanListRoute(app: RequestListener, deps: LeanListDeps): RequestListener {
  return (req, res) => {
    const lean = leanRequestOf(req, deps.gate);
    if (lean === undefined) {
      app(req, res);
      return;
    }
    void serve(req, res, lean, deps);
  };
}

/** The lean request, or undefined when express must answer (see withLeanListRoute). */
function leanRequestOf(req: IncomingMessage, gate: AccessGate): LeanRequest | undefined {
  if (req.method !== 'GET') return undefined;
  const url = req.url ?? '';
  if (!url.startsWith(PREFIX)) return undefined;
  const q = url.indexOf('?');
  const resource = url.slice(PREFIX.length, q === -1 ? undefined : q);
  if (!isResourceName(resource)) return undefined;
  const params = paramsOf(q === -1 ? '' : url.slice(q + 1));
  if (params === undefined) return undefined;
  const headers = req.headers;
  const length = headers['content-length'];
  if ((length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined)
    return undefined;
  if (!singleAuthorizationAndHost(req.rawHeaders)) return undefined;
  const identity = gate.knownIdentity(headers.authorization);
  return identity && { identity, resource, params };
}

/** No query, an empty one, or exactly `limit=<valid>`; anything else is express's to judge. */
function paramsOf(query: string): ListParams | undefined {
  if (query === '') return {};
  if (!query.startsWith('limit=')) return undefined;
  const limit = parseLimitString(query.slice('limit='.length));
  return limit === undefined ? undefined : { limit };
}

/**
 * What express's requestId(), securityHeaders(), accessLog() and metrics middleware do for
 * a request, in the same order; shared by the lean routes. Returns the request id.
 */
export function beginLeanResponse(
  req: IncomingMessage,
  res: ServerResponse,
  deps: Pick<LeanListDeps, 'log' | 'metrics' | 'accessLog'>,
  brandId: string,
  route: string,
): string {
  const started = performance.now();
  const requestId = safeRequestId(req.headers['x-request-id']) ?? newId('request');
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const locals: LogLocals = { requestId, brandId };
  if (deps.accessLog) logWhenClosed(deps.log, req, res, locals);
  res.once('finish', () => {
    deps.metrics.observeRequest(
      route,
      req.method ?? '',
      res.statusCode,
      (performance.now() - started) / 1e3,
    );
  });
  return requestId;
}

/** False when Authorization or Host appears twice (express refuses those: ambiguousHeaders.ts). */
export function singleAuthorizationAndHost(raw: string[]): boolean {
  let authorization = 0;
  let host = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization += 1;
    else if (name.length === 4 && name.toLowerCase() === 'host') host += 1;
  }
  return authorization <= 1 && host <= 1;
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  lean: LeanRequest,
  deps: LeanListDeps,
): Promise<void> {
  const requestId = beginLeanResponse(req, res, deps, lean.identity.brandId, ROUTE);
  try {
    const decision = await deps.gate.charge(res, lean.identity, 1);
    if (!decision.allowed) throw rateLimitedError(decision);
    const page = await listPage(deps.records, lean.identity, lean.resource, lean.params, requestId);
    endJson(req, res, 200, page);
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const answer: AppError = answerFor(deps.log, err, requestId, req.url!.split('?')[0]!);
    setErrorHeaders(res, answer);
    endJson(req, res, httpStatusOf(answer.code), JSON.stringify(errorBody(answer, requestId)));
  }
}

/**
 * The answer as express's res.send writes JSON: its Content-Type, an exact Content-Length.
 * A page goes out as its three parts (the records' bytes are never copied into one buffer:
 * node writes them in one writev, the socket being corked for the tick).
 */
export function endJson(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: PageJson | string,
): void {
  // closeWhenBodyUnread()'s rule; a bodiless GET is complete, so this is a safety net
  if (!req.complete) res.setHeader('Connection', 'close');
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  if (typeof body === 'string') {
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return;
  }
  res.setHeader(
    'Content-Length',
    Buffer.byteLength(body.head) + body.data.length + Buffer.byteLength(body.tail),
  );
  res.write(body.head);
  res.write(body.data);
  res.end(body.tail);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@brand/shared/logger';

/** What the access line names besides the request itself; read when the response closes. */
export interface LogLocals {
  requestId?: string;
  brandId?: string;
}

/**
 * The one log line of a request, written when its response closes (the request prelude calls
 * it for every request, whichever path answered): method, path, status, duration in ms,
 * request id and brand; `request aborted` (warn) when the client went away first. Headers are
 * not logged at all, so the Authorization header (the key) can never reach a log. One flat
 * object per request on the access logger, which writes in batches (createBufferedLogger):
 * pino-http's per-request child logger and serializers were about a quarter of the gateway's
 * CPU under load, and a write() per line 7 % on the walk (BENCHMARKS.md). Errors themselves are
 * logged where they are answered (http/errorHandler.ts). `locals` is read at close time (the
 * brand is known only after admission).
 */
export function writeAccessLine(
  log: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  locals: LogLocals,
  ms: number,
): void {
  // express's originalUrl is the raw request target too (routers rewrite only req.url)
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
  const q = url.indexOf('?');
  const line = {
    method: req.method,
    path: q === -1 ? url : url.slice(0, q),
    status: res.statusCode,
    ms: Math.round(ms * 100) / 100,
    request_id: locals.requestId,
    brand_id: locals.brandId,
  };
  if (!res.writableFinished) log.warn(line, 'request aborted');
  else if (res.statusCode >= 500) log.error(line, 'request completed');
  else log.info(line, 'request completed');
}

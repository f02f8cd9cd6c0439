import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@brand/shared/logger';

/**
 * One log line per request: method, path, status, duration, request id and brand. Headers
 * are not logged at all, so the Authorization header (the key) can never reach a log.
 */
export function accessLog(log: Logger): RequestHandler {
  return pinoHttp({
    logger: log,
    genReqId: (_req, res) =>
      (res as ServerResponse & { locals?: { requestId?: string } }).locals?.requestId ?? '',
    customProps: (_req, res) => {
      const locals = (res as ServerResponse & { locals?: { requestId?: string; brandId?: string } })
        .locals;
      return { request_id: locals?.requestId, brand_id: locals?.brandId };
    },
    serializers: {
      req: (req: IncomingMessage & { method?: string; url?: string }) => ({
        method: req.method,
        path: req.url?.split('?')[0],
      }),
      res: (res: ServerResponse) => ({ status: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    quietReqLogger: true,
    wrapSerializers: false,
  });
}

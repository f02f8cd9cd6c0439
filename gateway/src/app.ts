import type { RequestListener } from 'node:http';
import express, { type Express } from 'express';
import { AppError, quoteInput } from '@brand/shared/errors';
import type { Endpoint, FastPath } from './endpoints/endpoint';
import { createEndpoints, type EndpointDeps } from './endpoints/endpoints';
import type { ErrorSender } from './http/errorResponse';
import { errorAnswer, errorHandler, sendersByPath, type ErrorAnswer } from './http/errorHandler';
import type { GatewayMetrics } from './observability/metrics';
import { createRequestPrelude } from './prelude/requestPrelude';

export interface GatewayDeps extends EndpointDeps {
  metrics: GatewayMetrics;
  trustProxy: boolean | number | string[];
  accessLog: boolean;
  /** Serve the common requests by the endpoints' fast paths (GATEWAY_FAST_PATHS); else all by express. */
  fastPaths: boolean;
}

/**
 * The public listener: every request goes through the request prelude (request id, security
 * headers, access log, metrics, the duplicate-header refusal; prelude/requestPrelude.ts), then
 * to the first endpoint fast path that takes it, else to the express application, which
 * answers everything. Errors are answered in one way whoever raised them (errorAnswer).
 */
export function createGatewayListener(deps: GatewayDeps): RequestListener {
  const endpoints = createEndpoints(deps);
  const answerError = errorAnswer(deps.log, sendersByPath(errorFormats(endpoints)));
  const app = createApp(endpoints, answerError, deps.trustProxy) as RequestListener;
  const prelude = createRequestPrelude({
    log: deps.log,
    metrics: deps.metrics,
    accessLog: deps.accessLog,
    health: deps.health,
    refuse: answerError,
  });
  const fastPaths: FastPath[] = deps.fastPaths
    ? endpoints.flatMap((e) => (e.fastPath ? [e.fastPath] : []))
    : [];

  return (req, res) => {
    const scope = prelude(req, res);
    if (scope === undefined) return;
    for (const fastPath of fastPaths) {
      const answering = fastPath(req, res, scope, app);
      if (answering !== undefined) {
        void answering.catch((err: unknown) => answerError(req, res, err));
        return;
      }
    }
    app(req, res);
  };
}

/** The express application of the endpoints' routes; does not listen. */
function createApp(
  endpoints: Endpoint[],
  answerError: ErrorAnswer,
  trustProxy: GatewayDeps['trustProxy'],
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxy);

  const router = express.Router();
  for (const endpoint of endpoints) endpoint.mount(router);
  app.use(router);

  app.use((req) => {
    throw new AppError(
      'not_found',
      `No route for ${req.method} ${quoteInput(req.path)}. See /openapi/service.yaml.`,
    );
  });
  app.use(errorHandler(answerError));
  return app;
}

/** The paths whose errors are not REST bodies (the assistant endpoint's JSON-RPC). */
function errorFormats(endpoints: Endpoint[]): Map<string, ErrorSender> {
  return new Map(
    endpoints.flatMap((e) => (e.errorFormat ? [[e.errorFormat.path, e.errorFormat.send]] : [])),
  );
}

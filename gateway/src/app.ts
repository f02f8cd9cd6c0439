import type { RequestListener } from 'node:http';
import express, { type Express } from 'express';
import type { AccessGate } from './auth/accessGate';
import type { Endpoint, LeanPath } from './endpoints/endpoint';
import { createEndpoints, type EndpointDeps } from './endpoints/endpoints';
import type { ErrorSender } from './http/errorResponse';
import { errorAnswer, errorHandler, sendersByPath, type ErrorAnswer } from './http/errorHandler';
import type { AccessLog } from './observability/accessLog';
import type { GatewayMetrics } from './observability/metrics';
import { createRequestPrelude } from './prelude/requestPrelude';
import { unmatchedRoute } from './prelude/unmatchedRoute';
import type { UsageRecorder } from './usage/usageRecorder';

export interface GatewayDeps extends EndpointDeps {
  metrics: GatewayMetrics;
  trustProxy: boolean | number | string[];
  /** Where access lines go (observability/accessLog.ts); undefined: none. */
  accessLog: AccessLog | undefined;
  /** Usage counting (issue 26). */
  usage?: UsageRecorder;
}

/**
 * The public listener: every request goes through the request prelude (request id, security
 * headers, access log, metrics, the duplicate-header refusal; prelude/requestPrelude.ts), then
 * to the endpoint lean path whose request it is (every list request, REST and MCP, and a
 * campaign plan's POST), else to
 * the express application (the description file, and unmatched routes: 401 without a key, else
 * 404). Errors are answered
 * in one way whoever raised them (errorAnswer).
 */
export function createGatewayListener(deps: GatewayDeps): RequestListener {
  const endpoints = createEndpoints(deps);
  const answerError = errorAnswer(deps.log, sendersByPath(errorFormats(endpoints)));
  const app = createApp(endpoints, deps.gate, answerError, deps.trustProxy) as RequestListener;
  const prelude = createRequestPrelude({
    log: deps.log,
    metrics: deps.metrics,
    accessLog: deps.accessLog,
    health: deps.health,
    refuse: answerError,
    usage: deps.usage,
  });
  const leanPaths: LeanPath[] = endpoints.flatMap((e) => (e.lean ? [e.lean] : []));

  return (req, res) => {
    const scope = prelude(req, res);
    if (scope === undefined) return;
    for (const lean of leanPaths) {
      const answering = lean(req, res, scope);
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
  gate: AccessGate,
  answerError: ErrorAnswer,
  trustProxy: GatewayDeps['trustProxy'],
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxy);

  const router = express.Router();
  for (const endpoint of endpoints) endpoint.mount?.(router);
  app.use(router);

  app.use(unmatchedRoute(gate));
  app.use(errorHandler(answerError));
  return app;
}

/** The paths whose errors are not REST bodies (the assistant endpoint's JSON-RPC). */
function errorFormats(endpoints: Endpoint[]): Map<string, ErrorSender> {
  return new Map(
    endpoints.flatMap((e) => (e.errorFormat ? [[e.errorFormat.path, e.errorFormat.send]] : [])),
  );
}

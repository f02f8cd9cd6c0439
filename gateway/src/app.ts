import type { RequestListener } from 'node:http';
import express, { type Express } from 'express';
import { AppError, quoteInput } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import type { AccessGate } from './auth/accessGate';
import type { PlansApi } from './clients/plansClient';
import type { RecordsApi } from './clients/recordsClient';
import { errorHandler } from './http/errorHandler';
import { requestId } from './http/requestId';
import { refuseAmbiguousHeaders } from './http/ambiguousHeaders';
import { securityHeaders } from './http/securityHeaders';
import { closeWhenBodyUnread } from './http/unreadBody';
import { withLeanListRoute } from './http/leanListRoute';
import { withLeanMcpRoute } from './http/leanMcpRoute';
import { accessLog } from './observability/accessLog';
import type { GatewayMetrics } from './observability/metrics';
import { registerHealth, type HealthState } from './routes/health';
import { registerMcp } from './routes/mcp';
import { registerOpenApiDocument } from './routes/openapiDocument';
import { registerV1CampaignPlans } from './routes/v1CampaignPlans';
import { registerV1ResourcesList } from './routes/v1ResourcesList';

export interface GatewayDeps {
  log: Logger;
  gate: AccessGate;
  records: RecordsApi;
  plans: PlansApi;
  redis: Redis;
  metrics: GatewayMetrics;
  health: HealthState;
  openApiYaml: string;
  trustProxy: boolean | number | string[];
  accessLog: boolean;
  mcp: { allowedOrigins: readonly string[]; maxBodyBytes: number; timeoutMs: number };
}

/**
 * The public listener: the lean list and MCP routes (http/leanListRoute.ts,
 * http/leanMcpRoute.ts) ahead of the express application, which answers everything they do
 * not take.
 */
export function createGatewayListener(deps: GatewayDeps): RequestListener {
  const lean = {
    gate: deps.gate,
    records: deps.records,
    metrics: deps.metrics,
    log: deps.log,
    accessLog: deps.accessLog,
  };
  const app = createApp(deps) as RequestListener;
  return withLeanMcpRoute(withLeanListRoute(app, lean), {
    ...lean,
    plans: deps.plans,
    maxBodyBytes: deps.mcp.maxBodyBytes,
  });
}

/** Builds the HTTP application; does not listen (main.ts does, tests may use it directly). */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy);

  app.use(requestId());
  app.use(securityHeaders());
  app.use(closeWhenBodyUnread());
  app.use(refuseAmbiguousHeaders());
  if (deps.accessLog) app.use(accessLog(deps.log));
  app.use(deps.metrics.middleware());

  const router = express.Router();
  registerHealth(router, {
    records: deps.records,
    plans: deps.plans,
    redis: deps.redis,
    state: deps.health,
  });
  registerOpenApiDocument(router, { gate: deps.gate, yaml: deps.openApiYaml });
  registerMcp(router, {
    gate: deps.gate,
    records: deps.records,
    plans: deps.plans,
    log: deps.log,
    ...deps.mcp,
  });
  // Before the list route: its /api/v1/:resource would answer 405 to this POST.
  registerV1CampaignPlans(router, { gate: deps.gate, plans: deps.plans });
  registerV1ResourcesList(router, { gate: deps.gate, records: deps.records });
  app.use(router);

  app.use((req) => {
    throw new AppError(
      'not_found',
      `No route for ${req.method} ${quoteInput(req.path)}. See /openapi/service.yaml.`,
    );
  });
  app.use(errorHandler(deps.log));
  return app;
}

import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Redis } from '@brand/shared/redis';
import type { Logger } from '@brand/shared/logger';
import type { AccessGate } from '../auth/accessGate';
import type { EventsFeedApi } from '../clients/eventsFeedClient';
import type { PlansApi } from '../clients/plansClient';
import type { RecordsApi } from '../clients/recordsClient';
import type { HealthState } from '../ops/readiness';
import type { ChangeVersionRepair } from '../records/changeVersions';
import { apiRegistry } from '../openapi/document';
import { describeWebhookDeliveries } from '../openapi/webhookDeliveries';
import type { Endpoint } from './endpoint';
import { describeMcp, mcpEndpoint } from './mcp/endpoint';
import { describeOpenApiDocument, openApiDocumentEndpoint } from './openapiDocument/endpoint';
import { describeV1CampaignPlans, v1CampaignPlansEndpoint } from './v1CampaignPlans/endpoint';
import { describeV1EventsList, v1EventsListEndpoint } from './v1EventsList/endpoint';
import { describeV1ResourcesList, v1ResourcesListEndpoint } from './v1ResourcesList/endpoint';
import {
  describeV1ResourcesRetrieve,
  v1ResourcesRetrieveEndpoint,
} from './v1ResourcesRetrieve/endpoint';

/** What the endpoints need, all of it from the composition root (main.ts). */
export interface EndpointDeps {
  log: Logger;
  gate: AccessGate;
  records: RecordsApi;
  plans: PlansApi;
  /** The events feed, served by the webhooks process. */
  feed: EventsFeedApi;
  redis: Redis;
  /** Writes back change versions Redis lost (the list's ETag and 304). */
  changeVersions: ChangeVersionRepair;
  health: HealthState;
  openApiYaml: string;
  mcp: { allowedOrigins: readonly string[]; maxBodyBytes: number; timeoutMs: number };
}

/**
 * Every endpoint of the public listener, in the order express tries their routes: the
 * campaign plans before the list, whose `/api/v1/:resource` would answer 405 to their POST.
 * All of them need a key but the description file; the probes are on the internal listener
 * (opsApp.ts).
 */
export function createEndpoints(deps: EndpointDeps): Endpoint[] {
  const { log, gate, records, plans } = deps;
  return [
    openApiDocumentEndpoint({ gate, yaml: deps.openApiYaml }),
    mcpEndpoint({ gate, records, plans, log, ...deps.mcp }),
    v1CampaignPlansEndpoint({ gate, plans }),
    // before the list, whose /api/v1/:resource would take /api/v1/events as unknown_resource
    v1EventsListEndpoint({ gate, feed: deps.feed, versions: deps.changeVersions }),
    v1ResourcesListEndpoint({ gate, records, versions: deps.changeVersions }),
    v1ResourcesRetrieveEndpoint({ gate, records, versions: deps.changeVersions }),
  ];
}

/**
 * The OpenAPI operations of every endpoint, in the order the document lists them (records
 * first), each registered by its endpoint next to the schemas that validate it.
 */
export function describeEndpoints(): OpenAPIRegistry {
  const registry = apiRegistry();
  describeV1ResourcesList(registry);
  describeV1ResourcesRetrieve(registry);
  describeV1EventsList(registry);
  describeV1CampaignPlans(registry);
  describeMcp(registry);
  describeOpenApiDocument(registry);
  describeWebhookDeliveries(registry);
  return registry;
}

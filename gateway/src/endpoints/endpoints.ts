import type { Redis } from '@brand/shared/redis';
import type { Logger } from '@brand/shared/logger';
import type { AccessGate } from '../auth/accessGate';
import type { EventsFeedApi } from '../clients/eventsFeedClient';
import type { AuditLogApi } from '../clients/auditLogClient';
import type { PlansApi } from '../clients/plansClient';
import type { RecordsApi } from '../clients/recordsClient';
import type { HealthState } from '../ops/readiness';
import type { ChangeVersionRepair } from '../records/changeVersions';
import type { Endpoint } from './endpoint';
import { mcpEndpoint } from './mcp/endpoint';
import { openApiDocumentEndpoint } from './openapiDocument/endpoint';
import { v1CampaignPlansEndpoint } from './v1CampaignPlans/endpoint';
import { v1EventsListEndpoint } from './v1EventsList/endpoint';
import { v1AuditLogEndpoint } from './v1AuditLog/endpoint';
import { v1ResourcesListEndpoint } from './v1ResourcesList/endpoint';
import { v1ResourcesRetrieveEndpoint } from './v1ResourcesRetrieve/endpoint';

/** What the endpoints need, all of it from the composition root (main.ts). */
export interface EndpointDeps {
  log: Logger;
  gate: AccessGate;
  records: RecordsApi;
  plans: PlansApi;
  /** The events feed, served by the webhooks process. */
  feed: EventsFeedApi;
  /** The audit log (issue 63), served by the webhooks process. */
  audit: AuditLogApi;
  redis: Redis;
  /** Writes back change versions Redis lost (the list's ETag and 304). */
  changeVersions: ChangeVersionRepair;
  health: HealthState;
  /** The OpenAPI document as served (rendered on the first request for it). */
  openApiYaml: () => string;
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
    // before the list too: /api/v1/audit-log is no resource
    v1AuditLogEndpoint({ gate, audit: deps.audit }),
    v1ResourcesListEndpoint({ gate, records, versions: deps.changeVersions }),
    v1ResourcesRetrieveEndpoint({ gate, records, versions: deps.changeVersions }),
  ];
}

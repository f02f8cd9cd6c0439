import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { apiRegistry, renderOpenApiYaml } from '../openapi/document';
import { describeWebhookDeliveries } from '../openapi/webhookDeliveries';
import { describeMcp } from './mcp/endpoint';
import { describeOpenApiDocument } from './openapiDocument/endpoint';
import { describeV1CampaignPlans } from './v1CampaignPlans/endpoint';
import { describeV1EventsList } from './v1EventsList/endpoint';
import { describeV1AuditLog } from './v1AuditLog/endpoint';
import { describeV1ResourcesList } from './v1ResourcesList/endpoint';
import { describeV1ResourcesRetrieve } from './v1ResourcesRetrieve/endpoint';

/**
 * The OpenAPI operations of every endpoint, in the order the document lists them (records
 * first), each registered by its endpoint next to the schemas that validate it.
 */
export function describeEndpoints(): OpenAPIRegistry {
  const registry = apiRegistry();
  describeV1ResourcesList(registry);
  describeV1ResourcesRetrieve(registry);
  describeV1EventsList(registry);
  describeV1AuditLog(registry);
  describeV1CampaignPlans(registry);
  describeMcp(registry);
  describeOpenApiDocument(registry);
  describeWebhookDeliveries(registry);
  return registry;
}

/** The document served at /openapi/service.yaml, naming `serverUrl` as its server when set. */
export function renderServedDocument(serverUrl: string | undefined): string {
  return renderOpenApiYaml(describeEndpoints(), { serverUrl });
}

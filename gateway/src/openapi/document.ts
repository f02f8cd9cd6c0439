import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { stringify } from 'yaml';
import { registerComponents } from './components';
import { API_DESCRIPTION } from './description';
import { describeMcp } from '../mcp/describeMcp';
import { describeHealth } from '../routes/health';
import { describeOpenApiDocument } from '../routes/openapiDocument';
import { describeV1CampaignPlans } from '../routes/v1CampaignPlans';
import { describeV1ResourcesList } from '../routes/v1ResourcesList';

export function buildOpenApiDocument(
  opts: { serverUrl?: string } = {},
): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registerComponents(registry);
  // Each route file describes its own operations, next to the schemas that validate them.
  describeV1ResourcesList(registry);
  describeV1CampaignPlans(registry);
  describeMcp(registry);
  describeOpenApiDocument(registry);
  describeHealth(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Brand Records API',
      version: '1.0.0',
      description: API_DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Brand Records API support' },
    },
    servers: [
      {
        url: opts.serverUrl ?? '/',
        description: opts.serverUrl ? 'This deployment' : 'The origin serving this document',
      },
    ],
    tags: [
      { name: 'Records', description: 'The six read-only resources.' },
      {
        name: 'Campaign plans',
        description: 'Preparing campaign plans for the brand to review; nothing is published.',
      },
      { name: 'Assistant (MCP)', description: 'The assistant connection.' },
      { name: 'Service', description: 'The description file and the probes.' },
    ],
  });
}

/** The document as YAML, as served at /openapi/service.yaml. */
export function renderOpenApiYaml(opts: { serverUrl?: string } = {}): string {
  return stringify(buildOpenApiDocument(opts), { aliasDuplicateObjects: false, lineWidth: 0 });
}

import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { stringify } from 'yaml';
import { registerComponents } from './components';
import { API_DESCRIPTION } from './description';

/**
 * A registry for the document, holding the shared components (the security scheme, the
 * reusable headers). The endpoints register their operations in it, each next to the schemas
 * that validate it (endpoints/endpoints.ts hands it round); this folder never imports them.
 */
export function apiRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registerComponents(registry);
  return registry;
}

/** The OpenAPI 3.1 document of the operations registered in `registry` (see apiRegistry). */
function buildOpenApiDocument(
  registry: OpenAPIRegistry,
  opts: { serverUrl?: string } = {},
): ReturnType<OpenApiGeneratorV31['generateDocument']> {
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
      { name: 'Service', description: 'The description file.' },
      {
        name: 'Events',
        description:
          "The brand's business events: signed deliveries (webhooks) the service POSTs to the receivers a brand owner registers, and the same events as a feed an integration can read and follow (GET /api/v1/events).",
      },
    ],
  });
}

/** The document as YAML, as served at /openapi/service.yaml. */
export function renderOpenApiYaml(
  registry: OpenAPIRegistry,
  opts: { serverUrl?: string } = {},
): string {
  return stringify(buildOpenApiDocument(registry, opts), {
    aliasDuplicateObjects: false,
    lineWidth: 0,
  });
}

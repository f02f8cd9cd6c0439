import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { stringify } from 'yaml';
import { registerComponents } from './components';
import { API_DESCRIPTION } from './description';
import { registerMcpPath } from './mcpPath';
import { registerRecordPaths } from './recordPaths';
import { registerServicePaths } from './servicePaths';

export function buildOpenApiDocument(
  opts: { serverUrl?: string } = {},
): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registerComponents(registry);
  registerRecordPaths(registry);
  registerMcpPath(registry);
  registerServicePaths(registry);
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
      { name: 'Assistant (MCP)', description: 'The assistant connection.' },
      { name: 'Service', description: 'The description file, probes and metrics.' },
    ],
  });
}

/** The document as YAML, as served at /openapi/service.yaml. */
export function renderOpenApiYaml(opts: { serverUrl?: string } = {}): string {
  return stringify(buildOpenApiDocument(opts), { aliasDuplicateObjects: false, lineWidth: 0 });
}

import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

/** The security scheme and the reusable headers. */
export function registerComponents(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A brand API key: `Authorization: Bearer bk_live_...`. The scheme must be spelled exactly `Bearer`. The key selects the brand.',
  });
  registry.registerComponent('headers', 'X-Request-Id', {
    description:
      'Identifies the request in logs; echoed from the request when it is 8-128 safe characters, otherwise minted.',
    schema: { type: 'string' },
  });
  registry.registerComponent('headers', 'RateLimit', {
    description:
      'IETF RateLimit field: `"brand";r=<remaining>;t=<seconds until a unit frees up>`, or `"anonymous";...` for requests without a valid key.',
    schema: { type: 'string', examples: ['"brand";r=59;t=60'] },
  });
  registry.registerComponent('headers', 'RateLimit-Policy', {
    description: 'IETF RateLimit-Policy field: `"brand";q=<requests per window>;w=60`.',
    schema: { type: 'string', examples: ['"brand";q=60;w=60'] },
  });
  registry.registerComponent('headers', 'Retry-After', {
    description: 'Whole seconds to wait before retrying. Honour it.',
    schema: { type: 'integer', minimum: 1 },
  });
  registry.registerComponent('headers', 'ETag', {
    description:
      'Strong entity tag of exactly this page: the brand, the resource, the query and every record on it (any insert or status change of a record of the resource gives every page of it a new tag). Send it back as `If-None-Match` to be answered 304 while nothing changed.',
    schema: { type: 'string', examples: ['"x3Jd0aQ9sLw2VbN7cPz1mKf4YhT"'] },
  });
  registry.registerComponent('headers', 'WWW-Authenticate', {
    description: 'RFC 6750 challenge: `Bearer realm="api"`.',
    schema: { type: 'string' },
  });
}

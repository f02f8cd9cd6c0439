import type { Server } from 'node:http';

/**
 * Once shutdown begins, every response carries `Connection: close`, so keep-alive clients (a
 * balancer probing /readyz, SDK clients, integrations) leave after their current request.
 * `server.close()` alone closes only the connections idle at that instant: a client that keeps
 * reusing its connection would hold the process until the grace period kills it (exit 143),
 * mid-request. Registered ahead of every other request listener, so it covers every route.
 */
export function closeConnectionsOnShutdown(server: Server): { begin(): void } {
  let closing = false;
  server.prependListener('request', (_req, res) => {
    if (closing) res.setHeader('Connection', 'close');
  });
  return {
    begin: () => {
      closing = true;
    },
  };
}

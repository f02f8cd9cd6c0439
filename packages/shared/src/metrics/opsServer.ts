import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** A registry with the process metrics (CPU, memory, event-loop lag, GC) every process exposes. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** What GET /readyz answers: each check's state ("ok" or why not), ready when all are ok. */
export type ReadinessChecks = () => Record<string, string>;

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The internal operations listener of a service: GET /metrics (Prometheus), GET /healthz and,
 * given `readiness`, GET /readyz (200 or 503 with each check, for people and `npm run up`;
 * the chart's probes use grpc.health.v1). Bound to its own port so it never shares a listener
 * with traffic; the chart lets only the monitoring namespace reach it. Resolves once listening
 * (port 0: one the OS chose).
 */
export function startOpsServer(opts: {
  host: string;
  port: number;
  registry: Registry;
  readiness?: ReadinessChecks;
}): Promise<OpsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      opts.registry.metrics().then(
        (body) => res.writeHead(200, { 'Content-Type': opts.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else if (req.method === 'GET' && req.url === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
    } else if (req.method === 'GET' && req.url === '/readyz' && opts.readiness) {
      const checks = opts.readiness();
      const ready = Object.values(checks).every((c) => c === 'ok');
      res
        .writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks }));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : opts.port,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: Array<{ key: string; value: Record<string, unknown> }>;
      }>;
    }>;
  }>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** The environment that makes a process export its spans here, as `service`. */
  envFor(service: string): Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real OTLP/HTTP (JSON) trace receiver on 127.0.0.1: what a collector would get. Point a
 * process at it with OTEL_EXPORTER_OTLP_ENDPOINT=url (envFor).
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const data = JSON.parse(body) as OtlpExport;
        for (const rs of data.resourceSpans ?? []) {
          const service =
            rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]),
                ),
              });
            }
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    spans,
    envFor: (service) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_SERVICE_NAME: service,
      // exported within 100 ms, so tests need not wait for the default 5 s batches
      OTEL_BSP_SCHEDULE_DELAY: '100',
    }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

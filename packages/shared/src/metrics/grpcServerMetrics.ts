import { Counter, Histogram, type Registry } from 'prom-client';

/** What the gRPC boundary reports for each call (see unary in @brand/shared/grpc). */
export interface RpcObserver {
  observe(method: string, code: string, seconds: number): void;
}

/**
 * gRPC server request counts and latency by method and outcome code (our public error
 * code, or "ok"), the series every service exposes on its /metrics.
 */
export class GrpcServerMetrics implements RpcObserver {
  private readonly handled: Counter<'method' | 'code'>;
  private readonly duration: Histogram<'method' | 'code'>;

  constructor(registry: Registry) {
    this.handled = new Counter({
      name: 'grpc_server_handled_total',
      help: 'gRPC calls completed, by method and outcome code.',
      labelNames: ['method', 'code'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'gRPC call duration by method and outcome code.',
      labelNames: ['method', 'code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
  }

  observe(method: string, code: string, seconds: number): void {
    this.handled.inc({ method, code });
    this.duration.observe({ method, code }, seconds);
  }
}

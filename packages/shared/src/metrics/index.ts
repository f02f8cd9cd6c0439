export { GrpcServerMetrics, type RpcObserver } from './grpcServerMetrics';
export { createMetricsRegistry, startOpsServer, type OpsServer } from './opsServer';
export type { Registry } from 'prom-client';

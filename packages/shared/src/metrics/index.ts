export { backlogGauges, type Backlog } from './backlogGauges';
export { dependencyUpGauge } from './dependencyUp';
export { GrpcServerMetrics, type RpcObserver } from './grpcServerMetrics';
export {
  createMetricsRegistry,
  startOpsServer,
  type OpsServer,
  type ReadinessChecks,
} from './opsServer';
export { Counter, Gauge, Histogram, type Registry } from 'prom-client';

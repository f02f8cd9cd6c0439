import { Server, ServerCredentials } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';

/**
 * Server options for every service: bounded messages, keepalive that survives idle LBs, and
 * a maximum connection age so clients re-resolve and spread onto pods added by a scale-up
 * (in-flight calls get a grace period).
 */
export function createGrpcServer(): Server {
  return new Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
  });
}

/**
 * The standard grpc.health.v1 service. The overall status ('') and each named service
 * start NOT_SERVING; main.ts flips them once dependencies are reachable.
 */
export function createHealth(serviceNames: string[], server: Server): HealthImplementation {
  const statusMap: Record<string, ServingStatus> = { '': 'NOT_SERVING' };
  for (const name of serviceNames) statusMap[name] = 'NOT_SERVING';
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  return health;
}

/** Sets the overall status and every named service to one status. */
export function setAllHealth(
  health: HealthImplementation,
  serviceNames: string[],
  status: ServingStatus,
): void {
  health.setStatus('', status);
  for (const name of serviceNames) health.setStatus(name, status);
}

/** Binds with bindAsync (server.start() is deprecated) and resolves with the bound port. */
export function bindServer(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    );
  });
}

/**
 * Lets in-flight calls finish for up to `graceMs`, then cuts the rest off.
 * Resolves once the server is down either way.
 */
export function shutdownServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

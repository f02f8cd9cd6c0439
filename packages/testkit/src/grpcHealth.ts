import { HealthClient, connectClient, type ServingStatus } from '@brand/shared/grpc';

export type HealthStatus = ServingStatus | 'SERVICE_UNKNOWN';

/**
 * One standard grpc.health.v1 Check against `address` ('' asks for the whole server).
 * Rejects with the ServiceError when the server cannot answer (e.g. NOT_FOUND for a service
 * name it does not know, UNAVAILABLE when nothing listens).
 */
export async function checkGrpcHealth(
  address: string,
  service = '',
  timeoutMs = 2_000,
): Promise<HealthStatus> {
  const stub = connectClient(HealthClient.Stub, address);
  try {
    return await new HealthClient(stub).checkService(service, timeoutMs);
  } finally {
    stub.close();
  }
}

import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

export type HealthStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

type CheckMethod = (
  req: { service: string },
  options: { deadline: Date },
  cb: (err: ServiceError | null, res?: { status: HealthStatus }) => void,
) => void;

const HealthClient = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');

/**
 * One standard grpc.health.v1 Check against `address` ('' asks for the whole server).
 * Rejects with the ServiceError when the server cannot answer (e.g. NOT_FOUND for a service
 * name it does not know, UNAVAILABLE when nothing listens).
 */
export function checkGrpcHealth(
  address: string,
  service = '',
  timeoutMs = 2_000,
): Promise<HealthStatus> {
  const client = new HealthClient(address, credentials.createInsecure());
  const check = (client as unknown as { Check: CheckMethod }).Check.bind(client);
  return new Promise<HealthStatus>((resolve, reject) => {
    check({ service }, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) =>
      err || !res ? reject(err ?? new Error('empty health response')) : resolve(res.status),
    );
  }).finally(() => client.close());
}

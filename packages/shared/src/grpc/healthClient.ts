import { makeClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import { service as healthService, type ServingStatus } from 'grpc-health-check';

export type { ServingStatus };

type CheckStub = Client & {
  check(
    request: { service: string },
    options: { deadline: Date },
    callback: (err: ServiceError | null, res: { status: ServingStatus }) => void,
  ): void;
};

/**
 * A grpc.health.v1 client (grpc-health-check serves the protocol but ships no client). It
 * asks about the whole server (service "") unless told otherwise; health needs no credential.
 */
export class HealthClient {
  // grpc-health-check serves grpc.health.v1 but ships no client; its loaded definition makes one.
  static readonly Stub = makeClientConstructor(healthService, 'grpc.health.v1.Health');

  constructor(private readonly stub: Client) {}

  /** The server's overall status; 'UNKNOWN' when it cannot be reached in time. */
  check(deadlineMs: number): Promise<ServingStatus> {
    return this.checkService('', deadlineMs).catch(() => 'UNKNOWN' as const);
  }

  /** One service's status; rejects with the ServiceError (NOT_FOUND for an unknown name). */
  checkService(service: string, deadlineMs: number): Promise<ServingStatus> {
    return new Promise((resolve, reject) => {
      (this.stub as CheckStub).check(
        { service },
        { deadline: new Date(Date.now() + deadlineMs) },
        (err, res) => (err ? reject(err) : resolve(res.status)),
      );
    });
  }
}

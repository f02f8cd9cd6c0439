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

/** A grpc.health.v1 client asking about the whole server (service ""). */
export class HealthClient {
  // grpc-health-check serves grpc.health.v1 but ships no client; its loaded definition makes one.
  static readonly Stub = makeClientConstructor(healthService, 'grpc.health.v1.Health');

  constructor(private readonly stub: Client) {}

  /** The server's overall status; 'UNKNOWN' when it cannot be reached in time. */
  check(deadlineMs: number): Promise<ServingStatus> {
    return new Promise((resolve) => {
      (this.stub as CheckStub).check(
        { service: '' },
        { deadline: new Date(Date.now() + deadlineMs) },
        (err, res) => resolve(err ? 'UNKNOWN' : res.status),
      );
    });
  }
}

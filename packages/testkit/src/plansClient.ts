import { PlansServiceClient } from '@brand/proto/plans/v1';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import { TEST_ADMIN_TOKEN } from './services';

/** A typed caller of a plans process, as brandctl (admin token) or the gateway calls it. */
export interface PlansClient {
  plans: Caller<PlansServiceClient>;
  close(): void;
}

/**
 * Connects to a plans process presenting `token` (the admin token by default) on every
 * call; '' sends none. Failures reject with the AppError the shared caller makes of them.
 */
export function createPlansClient(
  plansAddr: string,
  token = TEST_ADMIN_TOKEN,
  metadata?: Record<string, string>,
): PlansClient {
  const client = connectClient(PlansServiceClient, plansAddr);
  return {
    plans: createCaller(client, { deadlineMs: 10_000, token, metadata }),
    close: () => client.close(),
  };
}

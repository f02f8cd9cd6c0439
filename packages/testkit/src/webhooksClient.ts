import { WebhooksServiceClient } from '@brand/proto/webhooks/v1';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import { TEST_ADMIN_TOKEN } from './services';

/** A typed caller of the WebhooksService (admin token by default) and its close. */
export interface WebhooksClient {
  call: Caller<WebhooksServiceClient>;
  close(): void;
}

/** `metadata` rides on every call, e.g. `{ 'x-brand-member-assertion': ... }` with the console token. */
export function createWebhooksClient(
  address: string,
  token = TEST_ADMIN_TOKEN,
  metadata?: Record<string, string>,
): WebhooksClient {
  const client = connectClient(WebhooksServiceClient, address);
  return {
    call: createCaller(client, { deadlineMs: 10_000, token, metadata }),
    close: () => client.close(),
  };
}

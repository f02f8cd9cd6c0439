import { WebhooksServiceClient } from '@brand/proto/webhooks/v1';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import { TEST_ADMIN_TOKEN } from './services';

/** A typed caller of the WebhooksService (admin token by default) and its close. */
export interface WebhooksClient {
  call: Caller<WebhooksServiceClient>;
  close(): void;
}

export function createWebhooksClient(address: string, token = TEST_ADMIN_TOKEN): WebhooksClient {
  const client = connectClient(WebhooksServiceClient, address);
  return {
    call: createCaller(client, { deadlineMs: 10_000, token }),
    close: () => client.close(),
  };
}

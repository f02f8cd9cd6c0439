// Type-checked as a CommonJS consumer (require conditions, dist/cjs declarations).
import { BrandRecords, type Envelope } from '@brand-records/client';
import { webhookNodeHandler, type WebhookEventType } from '@brand-records/client/webhooks';

export function make(apiKey: string): BrandRecords {
  return new BrandRecords({
    apiKey,
    baseUrl: 'https://api.example.com',
    timeoutMs: 5_000,
    maxRetries: 3,
  });
}

export const handler = webhookNodeHandler({
  secret: ['whsec_new', 'whsec_old'],
  eventTypes: ['submission.approved'] satisfies WebhookEventType[],
  onEvent: (event) => {
    const handle: string | undefined = event.data.object.creator_handle;
    return handle;
  },
});

export type LinkPage = Envelope<'links'>;

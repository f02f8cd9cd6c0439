import type { Receiver } from '@brand/proto/webhooks/v1';
import { startReceiver, type ReceiverOptions, type RunningReceiver } from '@brand/example-receiver';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import type { TestCa } from './testCa';
import type { WebhooksClient } from './webhooksClient';

export interface RegisteredReceiver {
  server: RunningReceiver;
  /** The secrets the server verifies with; push another receiver's to accept its deliveries too. */
  secrets: string[];
  receiver: Receiver;
  /** The signing secret AddReceiver answered (shown once). */
  secret: string;
}

/**
 * Starts an HTTPS example receiver (verifying every delivery as docs/contract.md#receiver-verification says, with a
 * certificate of `ca`) and registers it with the webhooks service for `brandId` and
 * `events`, so it verifies with the secret the registration answered.
 */
export async function startRegisteredReceiver(opts: {
  client: WebhooksClient;
  ca: TestCa;
  brandId: string;
  events: EventTypeName[];
  /** What the receiver processes; default `events`. */
  acceptedTypes?: EventTypeName[];
  respondWith?: ReceiverOptions['respondWith'];
  onEvent?: ReceiverOptions['onEvent'];
  keepReceived?: number;
  /** Registers this URL instead of the receiver's own (a redirecting server, ...). */
  url?: string;
  label?: string;
  actorEmail?: string;
}): Promise<RegisteredReceiver> {
  const secrets: string[] = [];
  const server = await startReceiver({
    tls: opts.ca.tls,
    secrets,
    acceptedTypes: opts.acceptedTypes ?? opts.events,
    respondWith: opts.respondWith,
    onEvent: opts.onEvent,
    keepReceived: opts.keepReceived,
  });
  try {
    const res = await opts.client.call('addReceiver', {
      brand_id: opts.brandId,
      url: opts.url ?? `${server.url}/hooks`,
      label: opts.label ?? 'test receiver',
      events: opts.events.map((e) => EVENT_TYPES.toProto(e)),
      actor_email: opts.actorEmail ?? 'owner@brand.test',
    });
    secrets.push(res.secret);
    if (!res.receiver) throw new Error('AddReceiver answered without a receiver');
    return { server, secrets, receiver: res.receiver, secret: res.secret };
  } catch (err) {
    await server.close();
    throw err;
  }
}

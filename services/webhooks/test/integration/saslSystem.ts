// Records' relay and the webhooks service on a test broker's SASL_SSL listener, with a
// verifying receiver of one brand's approvals (kafka.saslSsl and kafka.scramRotation).
import type { RunningReceiver } from '@brand/example-receiver';
import {
  createWebhooksClient,
  makeBrandWithKey,
  startRegisteredReceiver,
  startStack,
  type SaslSslListener,
  type Stack,
  type TestCa,
} from '@brand/testkit';

export interface SaslSystem {
  stack: Stack;
  receiver: RunningReceiver;
  brandId: string;
}

/**
 * `env` is both processes' Kafka settings (KAFKA_BROKERS on the listener, KAFKA_SSL_*,
 * KAFKA_SASL_*, BUSINESS_EVENTS_TOPIC); the topic exists already, so webhooks does not create it.
 */
export async function startSaslSystem(opts: {
  sasl: SaslSslListener;
  topic: string;
  groupId: string;
  receiverCa: TestCa;
  env: Record<string, string>;
  label: string;
}): Promise<SaslSystem> {
  const stack = await startStack({
    gateways: 0,
    recordsEnv: opts.env,
    webhooks: {
      topic: opts.topic,
      groupId: opts.groupId,
      caFile: opts.receiverCa.caFile,
      brokers: opts.sasl.brokers,
      env: { ...opts.env, KAFKA_ENSURE_TOPIC: 'false' },
    },
  });
  const client = createWebhooksClient(stack.webhooks!.address);
  try {
    const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    const { server: receiver } = await startRegisteredReceiver({
      client,
      ca: opts.receiverCa,
      brandId: brand.brand.id,
      events: ['submission.approved'],
      label: opts.label,
    });
    return { stack, receiver, brandId: brand.brand.id };
  } catch (err) {
    await stack.close();
    throw err;
  } finally {
    client.close();
  }
}

// The runnable receiver: `node dist/main.js` with the settings of config.ts in the
// environment. Each accepted event is one JSON line on stdout; refusals go to stderr.
import { loadReceiverConfig } from './config';
import { ConfigError } from './envParsing';
import { startReceiver } from './server';

function logLine(stream: NodeJS.WritableStream, fields: Record<string, unknown>): void {
  stream.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
}

async function main(): Promise<void> {
  const config = loadReceiverConfig(process.env);
  const receiver = await startReceiver({
    ...config,
    // The history is for tests that start a receiver in-process; this program never reads it.
    keepReceived: 0,
    onEvent: (event, { attempt, secretIndex }) => {
      // A real receiver would enqueue the work here and return at once.
      logLine(process.stdout, {
        msg: 'event accepted',
        event_id: event.id,
        type: event.type,
        test: event.test,
        brand_id: event.brand_id,
        resource: event.data.object.resource,
        record_id: event.data.object.id,
        attempt,
        // while rotating (RECEIVER_SECRETS=new,old): 1 = the new secret signed it, 2 = the old
        ...(config.secrets.length > 1 ? { secret: secretIndex + 1 } : {}),
      });
    },
    onDelivery: (delivery) => {
      if (delivery.outcome === 'processed') return;
      // Never log the raw body or the signature: neither helps an operator, and bodies
      // may hold data the log should not keep.
      logLine(process.stderr, {
        msg: `delivery ${delivery.outcome}`,
        status: delivery.status,
        reason: delivery.verdict.ok ? undefined : delivery.verdict.reason,
        event_id: delivery.event?.id,
        attempt: delivery.attempt,
      });
    },
  });
  logLine(process.stderr, {
    msg: 'receiver listening',
    url: receiver.url,
    events: config.acceptedTypes,
    secrets: config.secrets.length,
    tls: config.tls !== undefined,
  });
  const stop = (): void => {
    receiver.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError ? error.message : String(error);
  process.stderr.write(`receiver: ${message}\n`);
  process.exit(1);
});

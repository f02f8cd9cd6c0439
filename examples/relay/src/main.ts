// The runnable relay: `node dist/main.js` with the settings of config.ts in the
// environment. Logs one JSON line per request on stderr (never the chat URL).
import { ConfigError } from '@brand/example-receiver';
import { loadRelayConfig } from './config';
import { startRelay } from './relay';

function logLine(fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
}

async function main(): Promise<void> {
  const config = loadRelayConfig(process.env);
  const relay = await startRelay({ ...config, log: logLine });
  logLine({
    msg: 'relay listening',
    url: relay.url,
    events: config.acceptedTypes,
    tls: config.tls !== undefined,
  });
  const stop = (): void => {
    relay.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError ? error.message : String(error);
  process.stderr.write(`relay: ${message}\n`);
  process.exit(1);
});

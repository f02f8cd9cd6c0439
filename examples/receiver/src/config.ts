import { readFileSync } from 'node:fs';
import { type EventType } from './event';
import { parseEventList, parsePort, parseSecretList, parseTlsFiles } from './envParsing';

export interface ReceiverConfig {
  port: number;
  host: string;
  secrets: string[];
  acceptedTypes: EventType[];
  tls: { key: Buffer; cert: Buffer } | undefined;
}

/**
 * Reads the receiver's settings from the environment:
 * RECEIVER_PORT (default 8443), RECEIVER_HOST (default 127.0.0.1),
 * RECEIVER_SECRETS (required, comma-separated), RECEIVER_EVENTS (default: all four),
 * RECEIVER_TLS_CERT and RECEIVER_TLS_KEY (PEM file paths, both or neither).
 * Throws ConfigError with a readable message.
 */
export function loadReceiverConfig(
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => Buffer = (path) => readFileSync(path),
): ReceiverConfig {
  return {
    port: parsePort('RECEIVER_PORT', env.RECEIVER_PORT, 8443),
    host: env.RECEIVER_HOST?.trim() || '127.0.0.1',
    secrets: parseSecretList('RECEIVER_SECRETS', env.RECEIVER_SECRETS),
    acceptedTypes: parseEventList('RECEIVER_EVENTS', env.RECEIVER_EVENTS),
    tls: parseTlsFiles('RECEIVER_TLS_CERT', 'RECEIVER_TLS_KEY', env, readFile),
  };
}

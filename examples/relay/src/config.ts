import { readFileSync } from 'node:fs';
import {
  ConfigError,
  type EventType,
  parseEventList,
  parsePort,
  parseSecretList,
  parseTlsFiles,
} from '@brand/example-receiver';

export interface RelayConfig {
  port: number;
  host: string;
  secrets: string[];
  acceptedTypes: EventType[];
  targetUrl: string;
  dashboardBaseUrl: string;
  timeoutMs: number;
  tls: { key: Buffer; cert: Buffer } | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function parseUrl(name: string, value: string | undefined, allowLoopbackHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(value?.trim() ?? '');
  } catch {
    throw new ConfigError(`${name} is required and must be a URL`);
  }
  const https = url.protocol === 'https:';
  const localHttp = allowLoopbackHttp && url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (!https && !localHttp) {
    // The message must not echo the URL: a chat webhook URL is a credential.
    throw new ConfigError(
      `${name} must be an https URL${allowLoopbackHttp ? ' (http only on loopback)' : ''}`,
    );
  }
  return url.toString();
}

/**
 * Reads the relay's settings from the environment:
 * RELAY_TARGET_URL (required: the chat incoming-webhook URL, https; http only on loopback),
 * DASHBOARD_BASE_URL (required, for links), RELAY_SECRETS (required, comma-separated),
 * RELAY_EVENTS (default: all four), RELAY_PORT (default 8444), RELAY_HOST (default 127.0.0.1),
 * RELAY_TIMEOUT_MS (default 10000, at most 25000: the service waits 30 s for our answer),
 * RELAY_TLS_CERT and RELAY_TLS_KEY (PEM file paths, both or neither).
 * Throws ConfigError with a readable message.
 */
export function loadRelayConfig(
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => Buffer = (path) => readFileSync(path),
): RelayConfig {
  const timeoutMs = Number(env.RELAY_TIMEOUT_MS?.trim() || '10000');
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 25_000) {
    throw new ConfigError('RELAY_TIMEOUT_MS must be an integer from 1 to 25000');
  }
  return {
    port: parsePort('RELAY_PORT', env.RELAY_PORT, 8444),
    host: env.RELAY_HOST?.trim() || '127.0.0.1',
    secrets: parseSecretList('RELAY_SECRETS', env.RELAY_SECRETS),
    acceptedTypes: parseEventList('RELAY_EVENTS', env.RELAY_EVENTS),
    targetUrl: parseUrl('RELAY_TARGET_URL', env.RELAY_TARGET_URL, true),
    dashboardBaseUrl: parseUrl('DASHBOARD_BASE_URL', env.DASHBOARD_BASE_URL, true),
    timeoutMs,
    tls: parseTlsFiles('RELAY_TLS_CERT', 'RELAY_TLS_KEY', env, readFile),
  };
}

import { EVENT_TYPES, type EventType, isEventType } from './event';

/** A setting is missing or invalid; the message names the variable and says what is expected. */
export class ConfigError extends Error {
  override name = ConfigError.name;
}

/** Comma-separated list, blanks dropped. */
function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Signing secrets (`whsec_...`), comma-separated; at least one. Several while rotating. */
export function parseSecretList(name: string, value: string | undefined): string[] {
  const secrets = list(value);
  if (secrets.length === 0)
    throw new ConfigError(`${name} is required (comma-separated signing secrets)`);
  return secrets;
}

/** Event types, comma-separated; unset means all four. An unknown name is an error, not ignored. */
export function parseEventList(name: string, value: string | undefined): EventType[] {
  const names = list(value);
  if (names.length === 0) return [...EVENT_TYPES];
  const unknown = names.filter((n) => !isEventType(n));
  if (unknown.length > 0) {
    throw new ConfigError(
      `${name}: unknown event type ${unknown.join(', ')} (known: ${EVENT_TYPES.join(', ')})`,
    );
  }
  return names.filter(isEventType);
}

export function parsePort(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`${name} must be a port number (0-65535), got ${JSON.stringify(value)}`);
  }
  return port;
}

/** PEM certificate and key read from the files two variables name: both or neither. */
export function parseTlsFiles(
  certName: string,
  keyName: string,
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => Buffer,
): { cert: Buffer; key: Buffer } | undefined {
  const certPath = env[certName]?.trim() ?? '';
  const keyPath = env[keyName]?.trim() ?? '';
  if ((certPath === '') !== (keyPath === '')) {
    throw new ConfigError(`${certName} and ${keyName} go together: set both or neither`);
  }
  if (certPath === '') return undefined;
  const read = (name: string, path: string): Buffer => {
    try {
      return readFile(path);
    } catch (error) {
      throw new ConfigError(`${name}: cannot read ${path} (${(error as Error).message})`);
    }
  };
  return { cert: read(certName, certPath), key: read(keyName, keyPath) };
}

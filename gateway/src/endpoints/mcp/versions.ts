/** MCP protocol versions this endpoint speaks, newest first. */
export const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type ProtocolVersion = (typeof SUPPORTED_VERSIONS)[number];

export const LATEST_VERSION: ProtocolVersion = '2025-11-25';

/** What a request without an MCP-Protocol-Version header is taken to speak (MCP 2025-06-18, transports). */
export const DEFAULT_VERSION: ProtocolVersion = '2025-03-26';

export function isSupportedVersion(value: unknown): value is ProtocolVersion {
  return typeof value === 'string' && (SUPPORTED_VERSIONS as readonly string[]).includes(value);
}

/** The answer to initialize: the client's version when we speak it, else our newest (MCP lifecycle). */
export function negotiateVersion(requested: string): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_VERSION;
}

/** JSON-RPC batches exist only in 2025-03-26; 2025-06-18 removed them. */
export function allowsBatches(version: ProtocolVersion): boolean {
  return version === '2025-03-26';
}

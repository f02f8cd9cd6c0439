import type { Endpoint } from '../endpoint';
import { mcpPath, type McpDeps } from './leanPath';
import { MCP_PATH, sendMcpError } from './rpcAnswers';

export { describeMcp } from './openApi';

/**
 * POST /api/mcp, the assistant connection (docs/contract.md#assistant-endpoint), and the one entry to this folder: its
 * lean path (leanPath.ts: origin, key, body, envelope, budget, then a direct list call or the
 * SDK server), its OpenAPI operation (openApi.ts), and its error format: every error on this
 * path is a JSON-RPC body. The protocol's pieces (envelope, versions, exchange, tools) live
 * beside them.
 */
export function mcpEndpoint(deps: McpDeps): Endpoint {
  return {
    lean: mcpPath(deps),
    errorFormat: { path: MCP_PATH, send: sendMcpError },
  };
}

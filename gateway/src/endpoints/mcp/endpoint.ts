import type { Endpoint } from '../endpoint';
import { mcpFastPath } from './fastPath';
import { mountMcp, type McpDeps } from './route';
import { MCP_PATH, sendMcpError } from './rpcAnswers';

export { describeMcp } from './openApi';

/**
 * POST /api/mcp, the assistant connection (SPEC 4.2), and the one entry to this folder: the
 * express route (route.ts: origin, key, body, envelope, budget, then the SDK server or a
 * direct list call), its fast path for a lone list tools/call (fastPath.ts), its OpenAPI
 * operation (openApi.ts), and its error format: every error on this path is a JSON-RPC body.
 * The protocol's pieces (envelope, versions, exchange, tools) live beside them.
 */
export function mcpEndpoint(deps: McpDeps): Endpoint {
  return {
    mount: (router) => mountMcp(router, deps),
    fastPath: mcpFastPath(deps),
    errorFormat: { path: MCP_PATH, send: sendMcpError },
  };
}

import type { IncomingMessage } from 'node:http';
import type { ApiIdentity } from '../../auth/identity';
import type { RequestScope } from '../../http/requestScope';
import { knownIdentity } from '../../prelude/admission';
import type { FastPath } from '../endpoint';
import { answerDirectListCall, directListCall, type DirectListCall } from './directListCall';
import { readEnvelope } from './envelope';
import type { McpDeps } from './route';
import { answerSpentBudgetInBand, MCP_PATH } from './rpcAnswers';
import { toolContext } from './toolDefinition';
import { DEFAULT_VERSION, isSupportedVersion, type ProtocolVersion } from './versions';

/** What the headers promise; the body decides the rest. */
interface FastMcpRequest {
  identity: ApiIdentity;
  version: ProtocolVersion;
  length: number;
}

/**
 * The fast path of POST /api/mcp: an assistant's common request, a lone `tools/call` of a list
 * tool (directListCall.ts). Express's router, body parser, response object and middleware were
 * most of the gateway's remaining CPU per MCP call (BENCHMARKS.md). The headers decide first,
 * before anything is read, charged or written: the exact path, a key the gateway already knows,
 * no Origin (browsers take the express route and its Origin allow-list),
 * `Content-Type: application/json`, a supported (or absent) MCP-Protocol-Version, a
 * Content-Length within MCP_MAX_BODY_BYTES. Then the body is read and must be valid JSON whose
 * envelope is a direct list call. Whatever is not (another method, a batch, bad JSON, an
 * invalid envelope) goes to express with the body already read as `req.body` (body-parser
 * leaves a finished request alone), and the express route (route.ts) answers it exactly as
 * before: one definition of the protocol. A direct call gets the route's answer through the
 * same steps: one unit of the brand's budget (a spent one answered in-band), then the page.
 */
export function mcpFastPath(deps: McpDeps): FastPath {
  return (req, res, scope, express) => {
    const fast = fastMcpRequestOf(req, deps, scope);
    if (fast === undefined) return undefined;
    return readBody(req, fast.length).then(async (body) => {
      if (body === undefined) return; // the client went away; nothing was answered or charged
      const call = directCallIn(body, fast.version);
      if (call === undefined) {
        (req as IncomingMessage & { body?: Buffer }).body = body;
        express(req, res);
        return;
      }
      scope.route = MCP_PATH;
      const decision = await deps.gate.charge(res, fast.identity, 1);
      if (!decision.allowed) return answerSpentBudgetInBand(res, call.id, decision);
      const ctx = toolContext(deps, fast.identity, scope.requestId);
      return answerDirectListCall(res, call, ctx, deps.log);
    });
  };
}

function fastMcpRequestOf(
  req: IncomingMessage,
  deps: McpDeps,
  scope: RequestScope,
): FastMcpRequest | undefined {
  if (req.method !== 'POST' || req.url !== MCP_PATH) return undefined;
  const headers = req.headers;
  if (headers.origin !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  const type = headers['content-type'];
  if (type === undefined || !/^application\/json\s*(;|$)/i.test(type)) return undefined;
  const length = Number(headers['content-length']);
  if (!Number.isInteger(length) || length < 1 || length > deps.maxBodyBytes) return undefined;
  const versionHeader = headers['mcp-protocol-version'];
  let version: ProtocolVersion = DEFAULT_VERSION;
  if (versionHeader !== undefined) {
    if (!isSupportedVersion(versionHeader)) return undefined;
    version = versionHeader;
  }
  const identity = knownIdentity(deps.gate, req, scope);
  return identity && { identity, version, length };
}

/** The whole body (Content-Length bytes, which node enforces), or undefined if it never came. */
function readBody(req: IncomingMessage, length: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const body = Buffer.concat(chunks);
      resolve(body.length === length ? body : undefined);
    });
    req.once('error', () => resolve(undefined));
    req.once('close', () => {
      if (!req.complete) resolve(undefined);
    });
  });
}

function directCallIn(body: Buffer, version: ProtocolVersion): DirectListCall | undefined {
  try {
    return directListCall(readEnvelope(JSON.parse(body.toString('utf8')), version));
  } catch {
    return undefined; // express answers bad JSON and invalid envelopes
  }
}

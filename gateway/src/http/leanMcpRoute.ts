import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '@brand/shared/logger';
import { rateLimitedError, type AccessGate } from '../auth/accessGate';
import type { ApiIdentity } from '../auth/identity';
import type { PlansApi } from '../clients/plansClient';
import type { RecordsApi } from '../clients/recordsClient';
import { answerDirectListCall, directListCall, type DirectListCall } from '../mcp/directListCall';
import { readEnvelope } from '../mcp/envelope';
import { MCP_PATH } from '../mcp/rpcErrorResponse';
import { errorResult } from '../mcp/toolResult';
import { DEFAULT_VERSION, isSupportedVersion, type ProtocolVersion } from '../mcp/versions';
import type { GatewayMetrics } from '../observability/metrics';
import { setErrorHeaders } from './errorResponse';
import { beginLeanResponse, endJson, singleAuthorizationAndHost } from './leanListRoute';

export interface LeanMcpDeps {
  gate: AccessGate;
  records: RecordsApi;
  plans: PlansApi;
  metrics: GatewayMetrics;
  log: Logger;
  accessLog: boolean;
  maxBodyBytes: number;
}

/** What the headers promise; the body decides the rest. */
interface LeanMcpRequest {
  identity: ApiIdentity;
  version: ProtocolVersion;
  length: number;
}

/**
 * `POST /api/mcp` for an assistant's common request, a lone `tools/call` of a list tool, served
 * ahead of express like the lean list route (leanListRoute.ts): express's router, body parser,
 * response object and middleware were most of the gateway's remaining CPU per MCP call
 * (BENCHMARKS.md). The headers decide first, before anything is read, charged or written: the
 * exact path, a key the gateway already knows, no Origin (browsers take the express path and
 * its Origin allow-list), `Content-Type: application/json`, a supported (or absent)
 * MCP-Protocol-Version, a Content-Length within MCP_MAX_BODY_BYTES, one Authorization and one
 * Host header. Then the body is read and must be valid JSON whose envelope is a direct list call
 * (directListCall.ts). Whatever is not (another method, a batch, bad JSON, an invalid envelope)
 * goes to express with the body already read as `req.body` (body-parser leaves a finished
 * request alone), and express answers it exactly as before: one definition of the protocol.
 */
export function withLeanMcpRoute(app: RequestListener, deps: LeanMcpDeps): RequestListener {
  return (req, res) => {
    const lean = leanMcpRequestOf(req, deps);
    if (lean === undefined) {
      app(req, res);
      return;
    }
    void readBody(req, lean.length).then((body) => {
      if (body === undefined) return; // the client went away; nothing was answered or charged
      const call = directCallIn(body, lean.version);
      if (call === undefined) {
        (req as IncomingMessage & { body?: Buffer }).body = body;
        app(req, res);
        return;
      }
      return serve(req, res, lean.identity, call, deps);
    });
  };
}

function leanMcpRequestOf(req: IncomingMessage, deps: LeanMcpDeps): LeanMcpRequest | undefined {
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
  if (!singleAuthorizationAndHost(req.rawHeaders)) return undefined;
  const identity = deps.gate.knownIdentity(headers.authorization);
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

/**
 * What the express route does for a direct list call: one unit of the brand's budget (a spent
 * budget is answered in-band, SPEC 4.2 rule 2), then the page as the tool's result.
 */
async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  identity: ApiIdentity,
  call: DirectListCall,
  deps: LeanMcpDeps,
): Promise<void> {
  const requestId = beginLeanResponse(req, res, deps, identity.brandId, MCP_PATH);
  try {
    const decision = await deps.gate.charge(res, identity, 1);
    if (!decision.allowed) {
      const limited = rateLimitedError(decision);
      setErrorHeaders(res, limited);
      const result = errorResult(limited, requestId);
      endJson(req, res, 200, JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
      return;
    }
    const ctx = {
      identity,
      records: deps.records,
      plans: deps.plans,
      requestId,
      onPermissionRefused: () => deps.gate.permissionRefused(),
    };
    endJson(req, res, 200, await answerDirectListCall(call, ctx, deps.log));
  } catch (err) {
    // answerDirectListCall answers every failure in-band; this is only a safety net
    deps.log.error({ request_id: requestId, err }, 'request failed');
    res.destroy();
  }
}

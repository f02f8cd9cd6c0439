import http from 'node:http';
import { type ApiClient, type ApiResponse } from './apiClient';
import { OpenApiValidator } from './openApiValidator';

/** Raw-HTTP helpers for POST /api/mcp: JSON-RPC envelopes over the OpenAPI-validating ApiClient. */

export const MCP_PATH = '/api/mcp';
export const LATEST_VERSION = '2025-11-25';
export const SUPPORTED_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

interface RpcError {
  code: number;
  message: string;
  data?: { code?: string; request_id?: string; [key: string]: unknown };
}

export interface RpcResponse<R = Record<string, unknown>> {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: R;
  error?: RpcError;
}

export interface ToolResult {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    request_id: string;
    details?: Array<{ field: string; message: string }>;
  };
}

export interface Page<T = Record<string, unknown>> {
  resource: string;
  count: number;
  data: T[];
  next_cursor?: string;
}

export interface McpRequestOptions {
  key?: string;
  /** Sent as is instead of `Bearer <key>`. */
  authorization?: string;
  /** The MCP-Protocol-Version header; null sends none. Default: the client's default. */
  protocolVersion?: string | null;
  headers?: Record<string, string>;
}

/**
 * Posts JSON-RPC to /api/mcp through an ApiClient (every response is checked against the
 * served OpenAPI document) with the headers a spec-following client sends: Accept listing
 * JSON and SSE, MCP-Protocol-Version, Bearer key. Every response is kept in `responses`
 * so a file can assert transport-wide properties (no session id, no HTML, no 5xx).
 */
export class McpHttp {
  readonly responses: ApiResponse[] = [];
  private nextId = 1;

  constructor(
    readonly api: ApiClient,
    readonly defaults: { key?: string; protocolVersion?: string | null } = {},
  ) {}

  /** POSTs a JSON value (or, with `rawBody`, text or bytes as they are) to /api/mcp. */
  async post<T = unknown>(
    body: unknown,
    opts: McpRequestOptions & { rawBody?: string | Uint8Array } = {},
  ): Promise<ApiResponse<T>> {
    const version =
      opts.protocolVersion === undefined ? this.defaults.protocolVersion : opts.protocolVersion;
    const headers: Record<string, string> = {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      ...(version ? { 'MCP-Protocol-Version': version } : {}),
      ...opts.headers,
    };
    const key = opts.key ?? this.defaults.key;
    const res = await this.api.post<T>(MCP_PATH, {
      key: opts.authorization === undefined ? key : undefined,
      authorization: opts.authorization,
      headers,
      ...(opts.rawBody !== undefined ? { rawBody: opts.rawBody } : { body }),
    });
    this.responses.push(res);
    return res;
  }

  /** Sends one request with a fresh numeric id and returns the response and that id. */
  async rpc<R = Record<string, unknown>>(
    method: string,
    params?: unknown,
    opts: McpRequestOptions = {},
  ): Promise<ApiResponse<RpcResponse<R>> & { id: number }> {
    const id = this.nextId++;
    const message = { jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) };
    const res = await this.post<RpcResponse<R>>(message, opts);
    return Object.assign(res, { id });
  }

  /** tools/call; returns the HTTP response and the tool result (throws when there is none). */
  async callTool(
    name: string,
    args?: unknown,
    opts: McpRequestOptions = {},
  ): Promise<{ res: ApiResponse<RpcResponse<ToolResult>>; result: ToolResult }> {
    const res = await this.rpc<ToolResult>(
      'tools/call',
      { name, ...(args !== undefined ? { arguments: args } : {}) },
      opts,
    );
    if (res.status !== 200 || !res.body?.result) {
      throw new Error(`tools/call ${name}: no result (HTTP ${res.status}): ${res.text}`);
    }
    expect(res.body.id).toBe(res.id);
    return { res, result: res.body.result };
  }

  /** Calls a list tool and returns its page, checking it is a success with text = structuredContent. */
  async page<T = Record<string, unknown>>(
    name: string,
    args?: unknown,
    opts: McpRequestOptions = {},
  ): Promise<Page<T>> {
    const { result } = await this.callTool(name, args, opts);
    return pageOf<T>(result);
  }

  /** Calls a tool that must refuse, and returns the REST-shaped error body of its result. */
  async toolError(name: string, args?: unknown, opts: McpRequestOptions = {}): Promise<ErrorBody> {
    const { res, result } = await this.callTool(name, args, opts);
    expect(res.status).toBe(200);
    return errorOf(result);
  }
}

/** The page of a successful list result; structuredContent must equal the JSON text. */
export function pageOf<T = Record<string, unknown>>(result: ToolResult): Page<T> {
  if (result.isError) throw new Error(`expected a page, got an error result: ${textOf(result)}`);
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe('text');
  expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  return result.structuredContent as unknown as Page<T>;
}

/** The error body of an isError result: its only content is `{"error":{code,message,...}}` text. */
export function errorOf(result: ToolResult): ErrorBody {
  if (result.isError !== true) {
    throw new Error(`expected an isError result, got: ${JSON.stringify(result).slice(0, 300)}`);
  }
  expect(result.structuredContent).toBeUndefined();
  expect(result.content).toHaveLength(1);
  const body = JSON.parse(textOf(result)) as ErrorBody;
  expect(body.error).toBeDefined();
  expect(Object.keys(body)).toEqual(['error']);
  for (const field of ['code', 'message', 'request_id'] as const) {
    expect(typeof body.error[field]).toBe('string');
  }
  expect(body.error.request_id).toMatch(/^req_/);
  return body;
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  if (!first || first.type !== 'text') throw new Error('result without text content');
  return first.text;
}

/** Walks a REST listing with `query` through every page, returning the pages. */
export async function restWalk<T = Record<string, unknown>>(
  api: ApiClient,
  key: string,
  resource: string,
  query: Record<string, string> = {},
): Promise<Array<Page<T>>> {
  const pages: Array<Page<T>> = [];
  let cursor: string | undefined;
  do {
    const qs = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const res = await api.get<Page<T>>(`/api/v1/${resource}?${qs.toString()}`, { key });
    if (res.status !== 200) throw new Error(`REST ${resource}: HTTP ${res.status}: ${res.text}`);
    pages.push(res.body);
    cursor = res.body.next_cursor;
  } while (cursor && pages.length < 1_000);
  return pages;
}

/** Walks a list tool through every page over raw HTTP, following next_cursor. */
export async function mcpWalk<T = Record<string, unknown>>(
  mcp: McpHttp,
  tool: string,
  args: Record<string, unknown> = {},
  opts: McpRequestOptions = {},
): Promise<Array<Page<T>>> {
  const pages: Array<Page<T>> = [];
  let cursor: string | undefined;
  do {
    const page = await mcp.page<T>(tool, { ...args, ...(cursor ? { cursor } : {}) }, opts);
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor && pages.length < 1_000);
  return pages;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: unknown;
}

/**
 * A request through node:http, for what fetch cannot send (no Accept header at all, no
 * Content-Type with a body); the response is checked against the served OpenAPI document
 * like ApiClient does, and a mismatch throws.
 */
export async function rawRequest(
  baseUrl: string,
  opts: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const validator = await validatorFor(baseUrl);
  const url = new URL(opts.path, baseUrl);
  const res = await new Promise<{
    status: number;
    headers: http.IncomingHttpHeaders;
    text: string;
  }>((resolve, reject) => {
    const req = http.request(url, { method: opts.method, headers: opts.headers }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () =>
        resolve({
          status: r.statusCode ?? 0,
          headers: r.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      r.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
  const contentType = res.headers['content-type'] ?? null;
  const problems = validator.check(opts.method, opts.path, res.status, contentType, res.text);
  if (problems.length > 0) {
    throw new Error(
      `response does not match /openapi/service.yaml:\n  ${problems.join('\n  ')}\nbody: ${res.text.slice(0, 500)}`,
    );
  }
  let body: unknown;
  try {
    body = res.text ? JSON.parse(res.text) : undefined;
  } catch {
    body = undefined;
  }
  return { ...res, body };
}

const validators = new Map<string, Promise<OpenApiValidator>>();

function validatorFor(baseUrl: string): Promise<OpenApiValidator> {
  let v = validators.get(baseUrl);
  if (!v) {
    v = fetch(`${baseUrl}/openapi/service.yaml`).then(async (res) => {
      if (res.status !== 200) throw new Error(`GET /openapi/service.yaml answered ${res.status}`);
      return OpenApiValidator.fromYaml(await res.text());
    });
    validators.set(baseUrl, v);
  }
  return v;
}

/** A `bk_live_` key of the right shape that no brand holds. */
export function unknownLiveKey(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 40; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return `bk_live_${s}`;
}

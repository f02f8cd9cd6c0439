import { OpenApiValidator } from './openApiValidator';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else undefined. */
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  /** Sent as is, instead of `Bearer <key>`. */
  authorization?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body text (or bytes), sent as is. */
  rawBody?: string | Uint8Array;
}

/**
 * A client for the running gateway that checks every response against the OpenAPI
 * document the gateway serves (fetched once), so each test also proves the document
 * true for every response it sees, success or error. A mismatch throws.
 */
export class ApiClient {
  private validator: Promise<OpenApiValidator> | undefined;
  /** Every response this client received: method, path, status. */
  readonly seen: Array<{ method: string; path: string; status: number }> = [];

  constructor(readonly baseUrl: string) {}

  async get<T = unknown>(path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, opts);
  }

  async post<T = unknown>(path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, opts);
  }

  async request<T = unknown>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const validator = await this.loadValidator();
    const headers: Record<string, string> = { ...opts.headers };
    const authorization = opts.authorization ?? (opts.key ? `Bearer ${opts.key}` : undefined);
    if (authorization !== undefined) headers.Authorization = authorization;
    let body: string | Blob | undefined =
      opts.rawBody instanceof Uint8Array ? new Blob([Uint8Array.from(opts.rawBody)]) : opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    const problems = validator.check(
      method,
      path,
      res.status,
      res.headers.get('content-type'),
      text,
    );
    if (problems.length > 0) {
      throw new Error(
        `response does not match /openapi/service.yaml:\n  ${problems.join('\n  ')}\nbody: ${text.slice(0, 500)}`,
      );
    }
    this.seen.push({ method, path, status: res.status });
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  /** Fetches the document once; concurrent first requests share the one fetch. */
  private loadValidator(): Promise<OpenApiValidator> {
    this.validator ??= fetch(`${this.baseUrl}/openapi/service.yaml`).then(async (res) => {
      if (res.status !== 200) throw new Error(`GET /openapi/service.yaml answered ${res.status}`);
      return OpenApiValidator.fromYaml(await res.text());
    });
    return this.validator;
  }
}

import { ApiError, ConnectionError, TimeoutError } from '../errors/brandRecordsError.js';
import { checkSignal } from '../optionChecks.js';
import { errorFromResponse } from './errorResponse.js';
import type { ResponseMeta } from '../responseMeta.js';
import { responseMeta } from './readResponseMeta.js';
import {
  parseRetryAfterMs,
  retryDelayMs,
  type AttemptFailure,
  type RetryTuning,
} from './retryPolicy.js';
import type { ShapeCheck } from './responseShape.js';
import { sleep as defaultSleep } from './sleep.js';

export interface TransportConfig {
  apiKey: string;
  /** Origin (and optional path prefix) without a trailing slash. */
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
  tuning: RetryTuning;
  userAgent: string;
  /** Injected by unit tests; Math.random and a real timer otherwise. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Path under the base URL, starting with `/`. */
  path: string;
  query?: Record<string, string | undefined>;
  /** Serialised as JSON. */
  body?: unknown;
  /** May the request be sent again after a failure without doing anything twice? */
  idempotent: boolean;
  /** Extra request headers (If-None-Match). */
  headers?: Record<string, string>;
  /** A 304 is a result (body undefined), not an error: the request was conditional. */
  notModifiedIsResult?: boolean;
  /**
   * The shape a 2xx body must have (responseShape.ts); one that has another is an ApiError
   * `invalid_response`, like a body that is not JSON.
   */
  shape?: ShapeCheck;
  signal?: AbortSignal | undefined;
}

export interface TransportResult<T> {
  body: T;
  meta: ResponseMeta;
}

/** What one attempt produced: a result, or a failure to decide on. */
type Attempt<T> =
  | { ok: true; result: TransportResult<T> }
  | { ok: false; error: ApiError | ConnectionError; failure: AttemptFailure };

/**
 * Sends requests to the API: Bearer key, JSON, a timeout per attempt, and retries by the
 * rules of retryPolicy.ts. Throws ApiError subclasses for API refusals, ConnectionError /
 * TimeoutError when no answer came, and the signal's reason when the caller aborted.
 */
export class Transport {
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly config: TransportConfig) {
    this.random = config.random ?? Math.random;
    this.sleep = config.sleep ?? defaultSleep;
    this.now = config.now ?? Date.now;
  }

  async request<T>(spec: RequestSpec): Promise<TransportResult<T>> {
    checkSignal(spec.signal, `${spec.method} ${spec.path}`);
    for (let retriesDone = 0; ; retriesDone++) {
      const attempt = await this.attempt<T>(spec);
      if (attempt.ok) return attempt.result;
      const delay = retryDelayMs(attempt.failure, {
        retriesDone,
        maxRetries: this.config.maxRetries,
        idempotent: spec.idempotent,
        tuning: this.config.tuning,
        random: this.random,
      });
      if (delay === undefined) throw attempt.error;
      await this.sleep(delay, spec.signal);
    }
  }

  /**
   * How long a caller that retries by itself (a walk, the follower) may wait on a `Retry-After`
   * of `seconds` (one second when there was none), in ms: undefined beyond
   * `maxRetryAfterSeconds`, which is thrown to the user at once, as the transport does.
   */
  retryAfterWaitMs(seconds: number | undefined): number | undefined {
    const ms = (seconds ?? 1) * 1000;
    return ms > this.config.tuning.maxRetryAfterSeconds * 1000 ? undefined : ms;
  }

  /** Waits `ms` (with the injected clock in tests); rejects when `signal` aborts. */
  pause(ms: number, signal?: AbortSignal): Promise<void> {
    return this.sleep(ms, signal);
  }

  private url(spec: RequestSpec): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) params.set(name, value);
    }
    const query = params.toString();
    return `${this.config.baseUrl}${spec.path}${query ? `?${query}` : ''}`;
  }

  private headers(spec: RequestSpec): Record<string, string> {
    return {
      Authorization: `Bearer ${this.config.apiKey}`,
      Accept: 'application/json',
      'User-Agent': this.config.userAgent,
      ...(spec.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...spec.headers,
    };
  }

  /** One attempt, with its own timeout covering the headers and the whole body. */
  private async attempt<T>(spec: RequestSpec): Promise<Attempt<T>> {
    spec.signal?.throwIfAborted();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.config.timeoutMs);
    const forwardAbort = (): void => controller.abort(spec.signal?.reason);
    spec.signal?.addEventListener('abort', forwardAbort, { once: true });
    try {
      const response = await this.config.fetch(this.url(spec), {
        method: spec.method,
        headers: this.headers(spec),
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: controller.signal,
      });
      const text = await response.text();
      const meta = responseMeta(response);
      if (response.ok) return { ok: true, result: { body: parseBody<T>(text, meta, spec), meta } };
      if (response.status === 304 && spec.notModifiedIsResult)
        return { ok: true, result: { body: undefined as T, meta } };
      return {
        ok: false,
        error: errorFromResponse(text, meta, this.now()),
        failure: {
          kind: 'status',
          status: response.status,
          retryAfterMs: parseRetryAfterMs(response.headers.get('retry-after'), this.now()),
        },
      };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // The caller's own abort is not a failure to retry: it ends the call at once.
      if (spec.signal?.aborted) throw spec.signal.reason;
      const failed = timedOut
        ? new TimeoutError(this.config.timeoutMs)
        : new ConnectionError(`Could not reach the API: ${describe(error)}`, { cause: error });
      return { ok: false, error: failed, failure: { kind: 'connection' } };
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', forwardAbort);
    }
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

function invalidResponse(meta: ResponseMeta, what: string): ApiError {
  return new ApiError({
    code: 'invalid_response',
    message: `The API answered HTTP ${meta.status} with ${what}.`,
    details: undefined,
    meta,
  });
}

/**
 * A 2xx body that is not JSON, or not of the operation's shape, is the API's fault, reported
 * like any other API failure (and not retried: the same request would get the same body).
 */
function parseBody<T>(text: string, meta: ResponseMeta, spec: RequestSpec): T {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidResponse(meta, 'a body that is not JSON');
  }
  const problem = spec.shape?.(body);
  if (problem !== undefined) throw invalidResponse(meta, `a body of the wrong shape: ${problem}`);
  return body as T;
}

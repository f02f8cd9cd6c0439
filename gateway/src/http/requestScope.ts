import type { ServerResponse } from 'node:http';
import type { AuthFailureReason } from './authFailureReason';

/**
 * What the request prelude (prelude/requestPrelude.ts) knows of one request, and what the
 * path that answers adds to it. It is kept on the response as `res.locals` (express keeps a
 * `locals` it finds already set), so express middleware, the lean paths, the access line and
 * the request metric all read this one object.
 */
export interface RequestScope {
  /** Echoed in X-Request-Id, written in every log line and error body, sent to the services. */
  readonly requestId: string;
  /** The brand, once admission knows it (the access line names it). */
  brandId?: string;
  /**
   * The metric's route label, set by the lean path that answers the request
   * (express's answers are labelled with the route pattern its router matched).
   */
  route?: string;
  // What usage counting (usage/usageRecorder.ts) reads when the response is done:
  /** The admitted key (set with brandId when admission knows the key). */
  keyId?: string;
  /** The SHA-256 (hex) of a well-formed key that was not admitted from the cache. */
  keyHash?: string;
  /**
   * The key is the brand's but was refused for this request (from outside its networks, or of a
   * brand below Plus): the request is counted to the brand, but its address is not taken for the
   * brand's, so keyless requests from there are not filed under the brand (usageRecorder.ts).
   */
  keyRefusedHere?: boolean;
  /** Why the key was refused before any lookup (no key, another scheme, malformed, wrong environment). */
  keyRefusal?: AuthFailureReason;
  /** The error code the answer carried (REST body, JSON-RPC error, a tool's isError result). */
  errorCode?: string;
  /** Requests this HTTP request stands for: the assistant's messages (one unit each); else 1. */
  units?: number;
  /** Error codes of tool calls answered with isError inside a 200 (one unit each). */
  toolErrors?: string[];
}

/** The scope the prelude gave this response; undefined for a response it never saw. */
export function scopeOf(res: ServerResponse): RequestScope | undefined {
  return (res as { locals?: RequestScope }).locals;
}

/** The request id the prelude assigned to this response's request. */
export function requestIdOf(res: ServerResponse): string {
  return scopeOf(res)?.requestId ?? 'req_unknown';
}

/** The path of a request target, without its query or fragment (what express's req.path is). */
export function pathOf(url: string | undefined): string {
  const target = url ?? '';
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/**
 * The query string of a request target ('' when it has none), without a fragment: a client
 * never sends one, and one that does gets its query read as the path is (pathOf), not with the
 * fragment glued to the last value (`?limit=5#x` was 400 while `/links/lnk_1#x` was served).
 */
export function rawQueryOf(url: string): string {
  const hash = url.indexOf('#');
  const target = hash === -1 ? url : url.slice(0, hash);
  const q = target.indexOf('?');
  return q === -1 ? '' : target.slice(q + 1);
}

import type { ServerResponse } from 'node:http';

/**
 * What the request prelude (prelude/requestPrelude.ts) knows of one request, and what the
 * path that answers adds to it. It is kept on the response as `res.locals` (express keeps a
 * `locals` it finds already set), so express middleware, the fast paths, the access line and
 * the request metric all read this one object.
 */
export interface RequestScope {
  /** Echoed in X-Request-Id, written in every log line and error body, sent to the services. */
  readonly requestId: string;
  /** The brand, once admission knows it (the access line names it). */
  brandId?: string;
  /**
   * The metric's route label, set only by a fast path that answers the request itself
   * (express's answers are labelled with the route pattern its router matched).
   */
  route?: string;
}

/** The scope the prelude gave this response; undefined for a response it never saw. */
function scopeOf(res: ServerResponse): RequestScope | undefined {
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

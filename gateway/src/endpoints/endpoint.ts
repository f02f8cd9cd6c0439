import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Router } from 'express';
import type { ErrorSender } from '../http/errorResponse';
import type { RequestScope } from '../http/requestScope';

/**
 * One endpoint of the public listener, as its folder under endpoints/ hands it to app.ts:
 * its express routes, its fast path if it has one, and how it renders errors. Its input
 * schemas and its OpenAPI operations sit beside these in the same folder.
 */
export interface Endpoint {
  /** Mounts its express routes: the reference path, which answers every request of the endpoint. */
  mount(router: Router): void;
  /** Takes the endpoint's common requests ahead of express (see FastPath). */
  fastPath?: FastPath;
  /** Errors raised on `path` are answered by `send` rather than as the REST error body. */
  errorFormat?: { path: string; send: ErrorSender };
}

/**
 * A fast path: the requests a busy integration sends all day, answered with plain node:http
 * ahead of express, after the same request prelude (prelude/requestPrelude.ts) and through the
 * same admission, handlers and writers as the endpoint's express route; express's router,
 * response object and middleware were a third of the gateway's CPU per page (BENCHMARKS.md).
 *
 * It decides synchronously, before anything is read, charged or written, whether it takes the
 * request. Undefined: it does not, and express gets the request untouched. A promise: it took
 * it, and answers it, or hands it to `express` itself after reading what express could not
 * read again (the MCP body). A rejected promise is answered as express answers a route's error.
 * The comparison test (fastPaths.comparison) holds every answer to express's, byte for byte.
 */
export type FastPath = (
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
  express: RequestListener,
) => Promise<void> | undefined;

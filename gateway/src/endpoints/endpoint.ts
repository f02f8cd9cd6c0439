import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Router } from 'express';
import type { ErrorSender } from '../http/errorResponse';
import type { RequestScope } from '../http/requestScope';

/**
 * One endpoint of the public listener, as its folder under endpoints/ hands it to app.ts:
 * its lean path or its express routes (or both, for requests of different paths or methods),
 * and how it renders errors. Its input schemas and its OpenAPI operations sit beside these in
 * the same folder.
 */
export interface Endpoint {
  /**
   * The endpoint's requests that traffic is made of (every list request: REST pages and the
   * MCP POST; a campaign plan's POST), answered on plain node:http: the one implementation of
   * those requests.
   */
  lean?: LeanPath;
  /** Mounts its express routes: the rest of the surface. */
  mount?(router: Router): void;
  /** Errors raised on `path` are answered by `send` rather than as the REST error body. */
  errorFormat?: { path: string; send: ErrorSender };
}

/**
 * A lean path: every request of an endpoint's path and methods, answered with plain node:http
 * after the request prelude (prelude/requestPrelude.ts), through the one admission
 * (prelude/admission.ts) and the one error answer (a rejection is answered by errorAnswer,
 * http/errorHandler.ts). Express's router, response object and middleware were a third of
 * the gateway's CPU per page (BENCHMARKS.md), so the requests traffic is made of never meet
 * them, and no second implementation of them exists beside this one.
 *
 * It decides synchronously, before anything is read, charged or written, from the method and
 * path alone, whether the request is its own. Undefined: it is not, and express gets it.
 */
export type LeanPath = (
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
) => Promise<void> | undefined;

import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { httpStatusOf, type ErrorCode } from '../errors/codes';
import { newId } from '../ids';
import type { Logger } from '../logger';

/**
 * The public HTTP server of the gateway and the console, whose protocol-level refusals are the
 * contract's JSON errors. Node answers what its parser refuses (headers over 16 KB or a URL as
 * long, an unknown method, Transfer-Encoding with Content-Length, a bogus Content-Length, a raw
 * non-ASCII target), a request whose headers or body stalled past its deadline, an unknown
 * `Expect` and an HTTP/1.1 request without Host by itself: an empty body, no X-Request-Id and
 * no log line (the outside probe, 2026-11-30). Here each is
 * `{"error": {"code", "message", "request_id"}}` with X-Request-Id and Connection: close, and
 * one warn line naming the code; the request never reaches the app.
 *
 * Deadlines are checked every second (Node's default is 30 s, which let a slow body hold a
 * connection for over a minute).
 */
/** A refusal of the HTTP layer, as its body tells it. */
interface Refusal {
  code: ErrorCode;
  message: string;
  requestId: string;
}

/**
 * The body of a refusal on a path whose every answer has a format of its own (the gateway's
 * assistant endpoint answers JSON-RPC); undefined: the contract's JSON error. `target` is the
 * request target as sent (path and query), known once the request line was parsed.
 */
export type RefusalBody = (target: string, refusal: Refusal) => string | undefined;

export interface PublicHttpServerOptions {
  refusalBody?: RefusalBody;
}

export function createPublicHttpServer(
  listener: RequestListener,
  log: Logger,
  options: PublicHttpServerOptions = {},
): Server {
  const bodyFor = bodyMaker(options.refusalBody);
  const refuse = (req: IncomingMessage, res: ServerResponse, code: ErrorCode, message: string) =>
    refuseRequest(log, bodyFor, req, res, code, message);
  const server = createServer(
    // Host is checked below, so that its refusal is a JSON error too.
    { connectionsCheckingInterval: 1_000, requireHostHeader: false },
    (req, res) => {
      if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && !req.headers.host) {
        refuse(req, res, 'malformed_request', 'An HTTP/1.1 request needs a Host header.');
        return;
      }
      if (ABSOLUTE_FORM.test(req.url ?? '') && !toOriginForm(req)) {
        refuse(req, res, 'malformed_request', 'The request target is not a valid URL.');
        return;
      }
      listener(req, res);
    },
  );
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) =>
    answerClientError(log, bodyFor, err, socket),
  );
  // An Expect other than 100-continue (Node's own answer is an empty 417).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    refuse(req, res, 'expectation_failed', 'The Expect header can only be 100-continue.'),
  );
  // CONNECT, which Node answers by closing the connection unless the server is a proxy.
  server.on('connect', (req: IncomingMessage, socket: Duplex) =>
    answerConnect(log, bodyFor, req, socket),
  );
  return server;
}

const ABSOLUTE_FORM = /^https?:\/\//i;

/**
 * A request target in absolute form (`GET http://host/path`), which a server must accept (RFC 9112
 * 3.2.2; a client given the API as its proxy sends it), made the origin form every route reads,
 * its authority taking the place of Host as the RFC says; false when it is no URL. The gateway's
 * routes answered it 404 (a review, 2026-11-30).
 */
function toOriginForm(req: IncomingMessage): boolean {
  let url: URL;
  try {
    url = new URL(req.url!);
  } catch {
    return false;
  }
  req.url = `${url.pathname}${url.search}`;
  req.headers.host = url.host;
  return true;
}

/** What a protocol refusal answered a request with, when it cut one the app was serving. */
export interface ProtocolRefusal {
  status: number;
  code: ErrorCode;
}

const refusals = new WeakMap<object, ProtocolRefusal>();

/**
 * The refusal written on a response's connection instead of the app's answer (a body that
 * stalled past the request deadline: 408), so its access line records the status the client
 * was actually answered with, not the 200 a response object starts with.
 */
export function protocolRefusalOf(res: ServerResponse): ProtocolRefusal | undefined {
  return refusals.get(res);
}

/** Node's parser and deadline errors, by the code they carry; anything else is a 400. */
function refusalOf(err: { code?: string }): { code: ErrorCode; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        message: 'The request line and headers are too large (16 KB at most).',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return {
        code: 'request_timeout',
        message: 'The request did not arrive in time; send its headers and body without pausing.',
      };
    default:
      return { code: 'malformed_request', message: 'The request is not valid HTTP/1.1.' };
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

/** A refusal's body for a request target (undefined: not parsed yet), by `refusalBody` or the contract's. */
type BodyFor = (target: string | undefined, refusal: Refusal) => string;

function bodyMaker(refusalBody: RefusalBody | undefined): BodyFor {
  return (target, refusal) =>
    (target !== undefined ? refusalBody?.(target, refusal) : undefined) ??
    JSON.stringify({
      error: { code: refusal.code, message: refusal.message, request_id: refusal.requestId },
    });
}

/**
 * Answers a connection Node's parser or deadline refused (its 'clientError'): a complete
 * response written on the socket when it can still take one and nothing was written on it,
 * then the socket destroyed. A reset or an already closed connection is only destroyed (a
 * write there would be lost, or throw). Never throws: it runs inside the server's socket
 * error handling.
 */
function answerClientError(
  log: Logger,
  bodyFor: BodyFor,
  err: Error & { code?: string },
  socket: Duplex,
): void {
  try {
    const current = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !current?.headersSent) {
      const { code, message } = refusalOf(err);
      const status = httpStatusOf(code);
      const requestId = newId('request');
      // the request a deadline cut is known (its line was parsed); a parse error's is not
      const body = bodyFor(current?.req?.url, { code, message, requestId });
      if (current) refusals.set(current, { status, code });
      // written, then destroyed at once, as Node writes its own bare answer
      socket.write(
        `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
          `Date: ${new Date().toUTCString()}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Cache-Control: no-store\r\n' +
          'X-Content-Type-Options: nosniff\r\n' +
          `X-Request-Id: ${requestId}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
      log.warn(
        { request_id: requestId, code, status, reason: err.code ?? err.message },
        'request refused by the HTTP layer',
      );
    }
  } catch {
    // the socket went away while being answered: it is only destroyed
  }
  socket.destroy();
}

/**
 * Answers a CONNECT 405 method_not_allowed with an empty Allow (its target, an authority, allows
 * no method: this server is no proxy), then destroys the socket. Never throws.
 */
function answerConnect(log: Logger, bodyFor: BodyFor, req: IncomingMessage, socket: Duplex): void {
  try {
    const code = 'method_not_allowed';
    const status = httpStatusOf(code);
    const requestId = newId('request');
    const body = bodyFor(req.url, {
      code,
      message: 'CONNECT is not supported: this server is not a proxy.',
      requestId,
    });
    socket.write(
      `HTTP/1.1 ${status} Method Not Allowed\r\n` +
        `Date: ${new Date().toUTCString()}\r\n` +
        'Allow: \r\n' +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: no-store\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    log.warn(
      { request_id: requestId, code, status, method: req.method },
      'request refused by the HTTP layer',
    );
  } catch {
    // the socket went away while being answered: it is only destroyed
  }
  // written, then destroyed at once, as answerClientError does
  socket.destroy();
}

/** Answers a parsed request the app never sees (no Host, an unknown Expect), and closes its connection. */
function refuseRequest(
  log: Logger,
  bodyFor: BodyFor,
  req: IncomingMessage,
  res: ServerResponse,
  code: ErrorCode,
  message: string,
): void {
  const requestId = newId('request');
  const body = bodyFor(req.url, { code, message, requestId });
  res.writeHead(httpStatusOf(code), {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestId,
    Connection: 'close',
  });
  res.end(body);
  log.warn(
    { request_id: requestId, code, status: httpStatusOf(code), method: req.method },
    'request refused by the HTTP layer',
  );
}

import type { IncomingMessage, ServerResponse } from 'node:http';

/*
 * CORS for /api/mcp, for the origins MCP_ALLOWED_ORIGINS admits and no other, so a browser MCP
 * client (the MCP Inspector) on an allowed origin can read the answers. A small module rather
 * than the `cors` package: that one is an express-style middleware with a callback origin hook
 * and no types in this tree (@types/cors would be a new dependency); here the rules are fixed
 * (one path, one origin predicate the endpoint already applies, no credentials mode, a refused
 * origin answered by the endpoint's own 403), which is these few lines.
 */

/**
 * Methods a page may send: POST, the endpoint's one; GET and DELETE only so the page can read
 * their 405 (the SDK's client opens a GET stream after initialize and DELETEs on close, and
 * treats a 405 as "stateless server"; without the grant it sees a network error instead).
 */
const ALLOW_METHODS = 'POST, GET, DELETE';

/**
 * Request headers a Streamable HTTP client sends (@modelcontextprotocol/sdk's client:
 * Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID).
 * Accept and Content-Type are safelisted only for some values, so they are listed too.
 */
const ALLOW_HEADERS =
  'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID';

/**
 * Response headers a client must read: the request id, the rate-limit state and delay, the
 * 401's challenge (the SDK reads WWW-Authenticate) and a 405's Allow. No Mcp-Session-Id: the
 * endpoint is stateless and never sends one.
 */
const EXPOSE_HEADERS =
  'X-Request-Id, RateLimit, RateLimit-Policy, Retry-After, WWW-Authenticate, Allow';

/** How long a browser may cache the preflight (seconds; Chromium caps it at 7200). */
const MAX_AGE_SECONDS = '7200';

/** Adds Origin to Vary without dropping what is already there. */
function varyOnOrigin(res: ServerResponse): void {
  const current = res.getHeader('Vary');
  const list =
    current === undefined
      ? []
      : String(current)
          .split(',')
          .map((s) => s.trim());
  if (!list.some((v) => v.toLowerCase() === 'origin' || v === '*')) list.push('Origin');
  res.setHeader('Vary', list.filter(Boolean).join(', '));
}

/** The grant on an actual response (success or error) to an allowed origin. */
export function grantOrigin(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  varyOnOrigin(res);
}

/** A CORS preflight: OPTIONS naming the method it asks for (anything else is plain OPTIONS). */
export function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
}

/** Answers the preflight of an allowed origin: 204 with the grant, no body. */
export function answerPreflight(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
  res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
  res.setHeader('Access-Control-Max-Age', MAX_AGE_SECONDS);
  varyOnOrigin(res);
  res.statusCode = 204;
  res.setHeader('Content-Length', '0');
  res.end();
}

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a listener received, as it arrived. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the issuer answers its discovery path: a document, and optionally slowly or padded. */
export interface DiscoveryAnswer {
  /** The JSON document served (its `issuer` is filled in when absent). */
  document: Record<string, unknown>;
  /** Wait this long before the headers. */
  delayMs?: number;
  /** Pad the JSON with this many spaces (an oversized document). */
  padBytes?: number;
}

/**
 * An attacker's "identity provider" on 127.0.0.1: it serves whatever discovery document the
 * test sets (endpoints pointing anywhere, `javascript:` URLs, megabytes, slowly) and records
 * every request that reaches it. Not an IdP (tests of signing in use startTestIdp's real
 * oidc-provider): what records must refuse to trust. Also used as a plain trap: a listener
 * that only counts what reaches it.
 */
export interface HostileIssuer {
  /** "http://127.0.0.1:<port>" */
  origin: string;
  /** Every request received, oldest first. */
  received: ReceivedRequest[];
  /** Sets what the discovery path answers from now on. */
  serve(answer: DiscoveryAnswer): void;
  /** A discovery document naming this origin for every endpoint (what a benign issuer serves). */
  benignDocument(): Record<string, unknown>;
  close(): Promise<void>;
}

const DISCOVERY_PATH = '/.well-known/openid-configuration';

export async function startHostileIssuer(): Promise<HostileIssuer> {
  const received: ReceivedRequest[] = [];
  let answer: DiscoveryAnswer | undefined;
  let origin = '';
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      if (body.length < 65_536) body += chunk;
    });
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ method: req.method ?? '', path, headers: req.headers, body });
      if (path !== DISCOVERY_PATH || !answer) {
        res.writeHead(404).end();
        return;
      }
      const a = answer;
      const json = JSON.stringify({ issuer: origin, ...a.document });
      const text = a.padBytes ? `${json}${' '.repeat(a.padBytes)}` : json;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      };
      if (!a.delayMs) {
        send();
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, a.delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    serve(next) {
      answer = next;
    },
    benignDocument: () => ({
      issuer: origin,
      authorization_endpoint: `${origin}/auth`,
      token_endpoint: `${origin}/token`,
      userinfo_endpoint: `${origin}/me`,
      jwks_uri: `${origin}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    }),
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

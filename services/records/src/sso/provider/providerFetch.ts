import { BlockedAddressError, notPublic, pinnedLookup } from '@brand/shared/egress';
import type * as Undici from 'undici';
import { providerUrlRefusal, shownUrl, type ProviderPolicy } from './providerPolicy';

/**
 * A request to an identity provider that records refused to make, or whose answer it refused
 * to read: the policy, the size, the time. The message is a sentence safe to show an owner.
 */
export class ProviderRefusedError extends Error {
  override readonly name = ProviderRefusedError.name;
}

/** Each request to a provider gives up after this long (the console waits 5 s for records). */
export const PROVIDER_REQUEST_TIMEOUT_MS = 4_000;
/**
 * The most of one answer records reads: discovery documents and key sets are a few KB (the
 * largest public ones under 20 KB); beyond this the answer is refused, not buffered.
 */
const PROVIDER_ANSWER_MAX_BYTES = 256 * 1024;

/** Statuses whose Response may carry no body (the Fetch standard's "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

type FetchOptions = {
  method?: string;
  headers?: unknown;
  body?: unknown;
  signal?: AbortSignal | null;
};

const agents = new WeakMap<ProviderPolicy, Undici.Agent>();

/** One connection pool per policy: its sockets resolve names with the pinned lookup. */
function agentFor(policy: ProviderPolicy): Undici.Agent {
  let agent = agents.get(policy);
  if (!agent) {
    agent = newAgent(policy);
    agents.set(policy, agent);
  }
  return agent;
}

/**
 * undici, loaded by the first request to a provider: it is ~110 modules, ~75 ms of CPU at every
 * start of a records process that may never talk to a provider.
 */
function undici(): typeof Undici {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('undici') as typeof Undici;
}

function newAgent(policy: ProviderPolicy): Undici.Agent {
  return new (undici().Agent)({
    connect: {
      timeout: PROVIDER_REQUEST_TIMEOUT_MS,
      lookup: pinnedLookup(policy.allowLoopback),
    },
    headersTimeout: PROVIDER_REQUEST_TIMEOUT_MS,
    bodyTimeout: PROVIDER_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: 4_000,
  });
}

/** Names that do not exist, as the resolver says it (getaddrinfo's and c-ares' codes). */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * The pinned lookup's refusal among an error's causes, or a name that does not resolve refused
 * in the same words: an owner must not tell the internal names that exist from those that do not
 * (a review, 2026-11-30: "did not answer a discovery document" against a refusal naming the block).
 */
function blockedAddressIn(err: unknown, host: string): BlockedAddressError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof BlockedAddressError) return e;
    if (NO_SUCH_NAME.has((e as NodeJS.ErrnoException).code ?? '')) return notPublic(host);
  }
  return undefined;
}

/**
 * Whether an error (or one of its causes) is undici's own deadline: its headers and body timeouts
 * are the request's, so on a busy machine either may fire a moment before the request's abort
 * signal, and a slow provider was then answered as an unusable one (a CI run, 2026-11-30).
 */
function undiciTimeoutIn(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('UND_ERR_') && code.endsWith('_TIMEOUT')) return true;
  }
  return false;
}

/** Reads at most `max` bytes of a body; more is refused and the rest is not read. */
async function readBounded(body: AsyncIterable<Uint8Array> | null, max: number, shown: string) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!body) return Buffer.alloc(0);
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > max) {
      throw new ProviderRefusedError(
        `${shown} answered more than ${max / 1024} KiB (larger than any discovery document or key set)`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The fetch openid-client makes every request to a brand's provider with (its customFetch
 * hook): discovery, the key set, the token exchange, userinfo, and whatever it calls later.
 * Before a request: the URL must pass the provider policy (providerPolicy.ts; Node never runs
 * the lookup for an IP literal, so literals are judged here). At connect time: undici's
 * socket resolves the name with the pinned lookup, which refuses any non-public address and
 * connects only to the addresses it checked. Redirects are never followed (openid-client asks
 * for "manual"; a 3xx is refused by it). Each answer is read within PROVIDER_REQUEST_TIMEOUT_MS
 * and PROVIDER_ANSWER_MAX_BYTES, then handed to openid-client as a Response of its own.
 */
export function providerFetch(
  policy: ProviderPolicy,
  issuer: URL,
  agent: Undici.Agent = agentFor(policy),
): (url: string, options: FetchOptions) => Promise<Response> {
  return async (raw, options) => {
    const url = new URL(raw);
    const shown = shownUrl(url);
    const why = providerUrlRefusal(url, issuer, policy);
    if (why) throw new ProviderRefusedError(`${shown} ${why}`);
    const timeout = AbortSignal.timeout(PROVIDER_REQUEST_TIMEOUT_MS);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const timedOut = () =>
      new ProviderRefusedError(
        `${shown} did not answer within ${PROVIDER_REQUEST_TIMEOUT_MS / 1000} s`,
      );
    try {
      const res = await undici().fetch(url, {
        method: options.method,
        headers: options.headers as Record<string, string> | undefined,
        body: options.body as string | URLSearchParams | undefined,
        redirect: 'manual',
        signal,
        dispatcher: agent,
      });
      const body = await readBounded(res.body, PROVIDER_ANSWER_MAX_BYTES, shown);
      return new Response(NULL_BODY.has(res.status) ? null : body, {
        status: res.status,
        statusText: res.statusText,
        headers: [...res.headers],
      });
    } catch (err) {
      if (err instanceof ProviderRefusedError) throw err;
      const blocked = blockedAddressIn(err, url.hostname);
      if (blocked) throw new ProviderRefusedError(`${shown}: ${blocked.message}`);
      if (timeout.aborted || undiciTimeoutIn(err)) throw timedOut();
      throw err;
    }
  };
}

/** The ProviderRefusedError among an error's causes (openid-client wraps what fetch threw). */
export function providerRefusalIn(err: unknown): ProviderRefusedError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof ProviderRefusedError) return e;
  }
  return undefined;
}

import { LRUCache } from 'lru-cache';
import { AppError } from '@brand/shared/errors';
import { checkUrlShape } from '../egress/urlPolicy';

/** What the URL rules say of a receiver URL: its parsed form and span attributes, or why not. */
export type UrlVerdict =
  | { ok: true; url: URL; attributes: Readonly<Record<string, string | number>> }
  | { ok: false; refusal: string };

/**
 * The URL rules' verdict on each receiver URL (checkUrlShape: the egress rules, no team-chat
 * host), remembered by the URL's text. The rules are a function of the text and the loopback
 * setting alone, and applying them again at every attempt took 8-14 µs (parsing, the address
 * registries, the chat hosts), about 2 % of the webhooks process's CPU in S6, for the same
 * few URLs over and over (BENCHMARKS.md, issue 46). Addresses a name resolves to are still
 * checked at every connection (pinnedLookup): only the text's verdict is kept. Bounded: past
 * `max` URLs the least recently used verdict is forgotten (lru-cache, as openedSecrets.ts).
 */
export class UrlVerdicts {
  private readonly known: LRUCache<string, UrlVerdict>;

  constructor(
    private readonly allowLoopback: boolean,
    max = 10_000,
  ) {
    this.known = new LRUCache({ max });
  }

  /** The verdict on `raw`, judged once per text while it is remembered. */
  of(raw: string): UrlVerdict {
    let verdict = this.known.get(raw);
    if (verdict === undefined) {
      verdict = judge(raw, this.allowLoopback);
      this.known.set(raw, verdict);
    }
    return verdict;
  }

  /** URLs remembered. */
  get size(): number {
    return this.known.size;
  }
}

function judge(raw: string, allowLoopback: boolean): UrlVerdict {
  let url: URL;
  try {
    url = checkUrlShape(raw, allowLoopback);
  } catch (err) {
    return { ok: false, refusal: err instanceof AppError ? err.message : 'invalid URL' };
  }
  return {
    ok: true,
    url,
    attributes: Object.freeze({
      'http.request.method': 'POST',
      'url.scheme': url.protocol.replace(':', ''),
      'server.address': url.hostname,
      'server.port': Number(url.port || (url.protocol === 'http:' ? 80 : 443)),
    }),
  };
}

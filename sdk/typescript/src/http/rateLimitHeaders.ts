import type { RateLimitInfo } from '../responseMeta.js';

interface Item {
  name: string;
  params: Map<string, number>;
}

/** The first item of a structured-field list: `"name";key=int;key=int`. Undefined when malformed. */
function parseItem(value: string | null): Item | undefined {
  if (!value) return undefined;
  const [head = '', ...params] = (value.split(',')[0] ?? '').split(';').map((s) => s.trim());
  const name = /^"([^"]*)"$/.exec(head)?.[1] ?? head;
  if (!name) return undefined;
  const map = new Map<string, number>();
  for (const param of params) {
    const match = /^([a-z][a-z0-9_-]*)=(\d{1,15})$/.exec(param);
    if (match?.[1] && match[2]) map.set(match[1], Number(match[2]));
  }
  return { name, params: map };
}

/** The rate-limit state of a response, or undefined when it carries no (readable) RateLimit field. */
export function parseRateLimit(headers: Pick<Headers, 'get'>): RateLimitInfo | undefined {
  const state = parseItem(headers.get('ratelimit'));
  const remaining = state?.params.get('r');
  const reset = state?.params.get('t');
  if (!state || remaining === undefined || reset === undefined) return undefined;
  const policy = parseItem(headers.get('ratelimit-policy'));
  const samePolicy = policy?.name === state.name ? policy : undefined;
  return {
    policy: state.name,
    limit: samePolicy?.params.get('q'),
    remaining,
    reset,
    window: samePolicy?.params.get('w'),
  };
}

import type { RawAnswer } from '@brand/testkit';

/**
 * The answer with what differs between two requests by design set aside, each named here:
 * Date (the clock), X-Request-Id and the request ids in bodies (minted per request), and the
 * numbers of RateLimit (the brand's remaining units and reset, which the first of two
 * requests moves; the policy name is kept). Everything else stays: status, every header
 * name and value in order, the body byte for byte.
 */
export function comparable(a: RawAnswer): RawAnswer {
  const headers: string[] = [];
  for (let i = 0; i < a.headers.length; i += 2) {
    const name = a.headers[i]!;
    const value = a.headers[i + 1]!;
    const lower = name.toLowerCase();
    if (lower === 'date' || lower === 'x-request-id') headers.push(name, '*');
    else if (lower === 'ratelimit') headers.push(name, value.replace(/=\d+/g, '=*'));
    else headers.push(name, value);
  }
  return { status: a.status, headers, body: a.body.replace(/req_[0-9A-Za-z]+/g, 'req_*') };
}

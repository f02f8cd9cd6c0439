import { request as httpRequest } from 'node:http';

/** An answer as it came off the wire: status, raw header lines in order, body text. */
export interface RawAnswer {
  status: number;
  /** name, value, name, value, ... as sent (res.rawHeaders). */
  headers: string[];
  body: string;
}

/**
 * One request on its own connection (no keep-alive, so no answer depends on an earlier one),
 * with exactly these headers: a record, or raw `[name, value, ...]` lines to send a header
 * twice. Resolves with the answer whole.
 */
export function sendRaw(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string> | string[],
  body?: string,
): Promise<RawAnswer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.rawHeaders, body: text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The value of a header in a raw answer (the first, any case), or undefined. */
export function headerOf(answer: RawAnswer, name: string): string | undefined {
  for (let i = 0; i < answer.headers.length; i += 2) {
    if (answer.headers[i]!.toLowerCase() === name.toLowerCase()) return answer.headers[i + 1];
  }
  return undefined;
}

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

// Requests sent as they are on the wire (a header twice, exact header lines), for the tests of
// the gateway's and the console's HTTP edges.
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

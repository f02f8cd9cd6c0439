// Unit tests only (excluded from the build): a scripted fetch that records every request.

/** One scripted answer: a response, or an error fetch should throw (a connection failure). */
export type StubAnswer =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { throws: Error }
  | { hang: true };

export interface RecordedRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: unknown;
}

export interface FetchStub {
  fetch: typeof fetch;
  requests: RecordedRequest[];
}

/**
 * A fetch that answers from `script` in order (the last answer repeats), or from a function
 * of the request. `hang` never answers until the request's signal aborts.
 */
export function fetchStub(
  script: StubAnswer[] | ((req: RecordedRequest) => StubAnswer),
): FetchStub {
  const requests: RecordedRequest[] = [];
  const stub = (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const text = typeof init.body === 'string' ? init.body : undefined;
    const req: RecordedRequest = {
      url: new URL(String(input)),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: text === undefined ? undefined : (JSON.parse(text) as unknown),
    };
    requests.push(req);
    const answer =
      typeof script === 'function'
        ? script(req)
        : script[Math.min(requests.length - 1, script.length - 1)];
    if (!answer) throw new Error('fetchStub: empty script');
    if ('throws' in answer) return Promise.reject(answer.throws);
    if ('hang' in answer) {
      return new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () =>
          reject(new DOMException('aborted', 'AbortError')),
        );
      });
    }
    const body =
      answer.body === undefined
        ? ''
        : typeof answer.body === 'string'
          ? answer.body
          : JSON.stringify(answer.body);
    return Promise.resolve(
      new Response(answer.status === 204 || answer.status === 304 ? null : body, {
        status: answer.status,
        headers: { 'content-type': 'application/json', ...answer.headers },
      }),
    );
  };
  return { fetch: stub as typeof fetch, requests };
}

/** The API's error body. */
export function errorBody(
  code: string,
  message = `refused: ${code}`,
  extra: Record<string, unknown> = {},
) {
  return { error: { code, message, request_id: 'req_from_body', ...extra } };
}

/** A page of `count` fake records of a resource, with next_cursor when `cursor` is given. */
export function pageBody(resource: string, ids: string[], nextCursor?: string) {
  return {
    resource,
    count: ids.length,
    data: ids.map((id) => ({ id })),
    ...(nextCursor ? { next_cursor: nextCursor } : {}),
  };
}

import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@brand/shared/logger';
import { AccessLog } from './accessLog';

/** A request and its response as node:http makes them, finished or not. */
function exchange(opts: { method: string; url: string; status: number; finished: boolean }) {
  const req = new IncomingMessage(new Socket());
  req.method = opts.method;
  req.url = opts.url;
  const res = new ServerResponse(req);
  res.statusCode = opts.status;
  Object.defineProperty(res, 'writableFinished', { value: opts.finished });
  return { req, res };
}

function accessLines(level: 'info' | 'warn' | 'error' | 'silent') {
  const lines: string[] = [];
  const log = new AccessLog({ service: 'gateway', level, sink: { write: (l) => lines.push(l) } });
  return { log, lines };
}

/** The line pino's service logger writes for the same fields (the format access lines keep). */
function pinoLine(
  level: 'info' | 'warn' | 'error',
  fields: Record<string, unknown>,
  msg: string,
): Record<string, unknown> {
  let out = '';
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  createLogger({ service: 'gateway', level: 'info', destination })[level](fields, msg);
  return JSON.parse(out) as Record<string, unknown>;
}

const withoutTime = ({ time, ...rest }: Record<string, unknown>) => {
  expect(typeof time).toBe('string');
  expect(new Date(time as string).toISOString()).toBe(time);
  return rest;
};

describe('AccessLog', () => {
  it('writes the line pino writes for the same request, one JSON object per line', () => {
    const { log, lines } = accessLines('info');
    const { req, res } = exchange({
      method: 'GET',
      url: '/api/v1/submissions?limit=5&cursor=abc',
      status: 200,
      finished: true,
    });
    log.write(req, res, { requestId: 'req_1', brandId: 'brd_1' }, 12.3456);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('}\n')).toBe(true);
    const fields = {
      method: 'GET',
      path: '/api/v1/submissions',
      status: 200,
      ms: 12.35,
      request_id: 'req_1',
      brand_id: 'brd_1',
    };
    expect(withoutTime(JSON.parse(lines[0] ?? '') as Record<string, unknown>)).toEqual(
      withoutTime(pinoLine('info', fields, 'request completed')),
    );
  });

  it('leaves the brand out until admission knew it, and logs a 5xx at error', () => {
    const { log, lines } = accessLines('info');
    const { req, res } = exchange({ method: 'POST', url: '/api/mcp', status: 503, finished: true });
    log.write(req, res, { requestId: 'req_2' }, 1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(line).not.toHaveProperty('brand_id');
    expect(line).toMatchObject({ level: 'error', status: 503, msg: 'request completed' });
  });

  it('says a request whose client went away first was aborted, at warn', () => {
    const { log, lines } = accessLines('warn');
    const { req, res } = exchange({ method: 'GET', url: '/x', status: 200, finished: false });
    log.write(req, res, { requestId: 'req_3' }, 1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'warn', msg: 'request aborted' });
  });

  // The outside probe (2026-11-30): a request cut before any answer was logged as status 200,
  // the status a response object starts with.
  it('logs an aborted request nothing was sent for as 499, one whose headers were sent as sent', () => {
    const { log, lines } = accessLines('warn');
    const unanswered = exchange({ method: 'POST', url: '/x', status: 200, finished: false });
    log.write(unanswered.req, unanswered.res, { requestId: 'req_4' }, 1);
    const midAnswer = exchange({ method: 'GET', url: '/x', status: 200, finished: false });
    Object.defineProperty(midAnswer.res, 'headersSent', { value: true });
    log.write(midAnswer.req, midAnswer.res, { requestId: 'req_5' }, 1);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toMatchObject([
      { level: 'warn', status: 499, msg: 'request aborted' },
      { level: 'warn', status: 200, msg: 'request aborted' },
    ]);
  });

  it('writes only lines at or above its level', () => {
    const done = exchange({ method: 'GET', url: '/x', status: 200, finished: true });
    const failed = exchange({ method: 'GET', url: '/x', status: 500, finished: true });
    const warn = accessLines('warn');
    warn.log.write(done.req, done.res, {}, 1);
    warn.log.write(failed.req, failed.res, {}, 1);
    expect(warn.lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(['error']);
    const silent = accessLines('silent');
    silent.log.write(failed.req, failed.res, {}, 1);
    expect(silent.lines).toEqual([]);
  });

  it('escapes what the client controls, so a path cannot break or forge a line', () => {
    const { log, lines } = accessLines('info');
    const hostile = '/api/v1/x"},"level":"fatal\n{"forged":true}\u0000\u2028';
    const { req, res } = exchange({ method: 'GET', url: hostile, status: 404, finished: true });
    log.write(req, res, { requestId: 'req_4' }, 1);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.indexOf('\n')).toBe((lines[0]?.length ?? 0) - 1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'info', path: hostile });
    expect(line).not.toHaveProperty('forged');
  });
});

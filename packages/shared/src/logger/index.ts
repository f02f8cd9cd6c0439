import pino, { type Logger, type LevelWithSilent } from 'pino';
import { traceFields } from '../telemetry/traceFields';

export type { Logger };

/**
 * Paths that must never reach a log line. Keys travel in the Authorization header and in
 * CreateKey responses; signing secrets and tokens in their own fields.
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-internal-token"]',
  'headers.authorization',
  'authorization',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'password',
  '*.password',
];

/**
 * A JSON logger with the service name on every line, ISO timestamps and secrets redacted.
 * `destination` exists for tests; production writes to stdout.
 */
export function createLogger(opts: {
  service: string;
  level: LevelWithSilent;
  destination?: pino.DestinationStream;
  /**
   * false only for a logger whose every line is built from fixed fields none of which is a
   * secret (the access lines): redaction walks each line's paths, 3 to 5 us a line.
   */
  redact?: boolean;
}): Logger {
  return pino(
    {
      level: opts.level,
      base: { service: opts.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(opts.redact === false ? {} : { redact: { paths: REDACT_PATHS, censor: '[redacted]' } }),
      formatters: { level: (label) => ({ level: label }) },
      // trace_id and span_id of the active span, so a request's log lines and trace join up
      mixin: traceFields,
    },
    opts.destination,
  );
}

/** How long a buffered line may wait before it is written. */
const BUFFERED_FLUSH_MS = 250;

/**
 * createLogger for one line per request (the gateway's access lines), writing to stdout in
 * batches: lines collect up to 4 KB and are written together, at the latest 250 ms after they
 * were logged, and whatever is left on exit (a crash included; a SIGKILL loses at most the
 * last 250 ms). One write() per request was 7 % of the gateway's CPU on the walk
 * (BENCHMARKS.md, issue 25). Writes stay synchronous, on the main thread, and hold whole
 * lines, so they never interleave with the service's other log lines mid-line; the two
 * streams may differ in order by up to 250 ms (every line carries its time).
 * Without redaction: its lines are the access line's fixed fields (method, path without the
 * query, status, duration, request id, brand id; accessLog.ts), never headers or bodies, so no
 * redaction path can match, and redaction cost half of each line's 6 to 10 us.
 */
export function createBufferedLogger(opts: { service: string; level: LevelWithSilent }): Logger {
  const destination = pino.destination({ dest: 1, sync: true, minLength: 4096 });
  const flush = (): void => {
    try {
      destination.flushSync();
    } catch {
      // stdout closed (EPIPE) or not open yet: nothing to flush to
    }
  };
  setInterval(flush, BUFFERED_FLUSH_MS).unref();
  process.once('exit', flush);
  return createLogger({ ...opts, destination, redact: false });
}

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
}): Logger {
  return pino(
    {
      level: opts.level,
      base: { service: opts.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      // trace_id and span_id of the active span, so a request's log lines and trace join up
      mixin: traceFields,
    },
    opts.destination,
  );
}

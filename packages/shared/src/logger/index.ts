import pino, { type Logger, type LevelWithSilent } from 'pino';
import { traceFields } from '../telemetry/traceFields';

export type { LevelWithSilent, Logger };

/** pino's number for a level label (a line is written when its level is at least the logger's). */
export function levelValue(level: LevelWithSilent): number {
  return level === 'silent' ? Infinity : pino.levels.values[level]!;
}

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

/** How long a batched line may wait before it is written. */
const BATCHED_FLUSH_MS = 250;

/** How many characters of lines collect before they are written together. */
const BATCHED_CHUNK_CHARS = 32 * 1024;

/** Where whole log lines go (each ends with a newline). */
export interface LineSink {
  write(line: string): void;
}

/** A line batcher's own controls: flush() writes what has collected now. */
export interface LineBatcher extends LineSink {
  flush(this: void): void;
}

/**
 * Collects lines and hands them to `writeChunk` together: once `chunkChars` characters have
 * collected, and whatever is pending when flush() is called. Lines are kept as an array and
 * joined once per chunk, so a line costs a push and its share of one copy.
 *
 * Why not sonic-boom's own `minLength` buffering: its write() appends to one string and measures
 * that string's UTF-8 length on every call, which flattens it, so each line copied everything
 * collected before it (16 KB on average at 32 KB): 30 % of the gateway's allocated bytes on
 * the walk, and the scavenges and major GCs that follow (BENCHMARKS.md, issue 25).
 */
export function createLineBatcher(
  writeChunk: (chunk: string) => void,
  chunkChars = BATCHED_CHUNK_CHARS,
): LineBatcher {
  let lines: string[] = [];
  let chars = 0;
  const flush = (): void => {
    if (lines.length === 0) return;
    const chunk = lines.join('');
    lines = [];
    chars = 0;
    writeChunk(chunk);
  };
  return {
    write(line) {
      lines.push(line);
      chars += line.length;
      if (chars >= chunkChars) flush();
    },
    flush,
  };
}

/**
 * Stdout for one line per request (the gateway's access lines, formatted by their writer),
 * written in batches: lines collect up to 32 KB and are written together, at the latest 250 ms
 * after they were logged, and whatever is left on exit (a crash included; a SIGKILL loses at
 * most the last 250 ms). One write() per request was 7 % of the gateway's CPU on the walk
 * (BENCHMARKS.md, issue 25). Writes stay synchronous, on the main thread, and hold whole
 * lines, so they never interleave with the service's other log lines mid-line; the two
 * streams may differ in order by up to 250 ms (every line carries its time). pino's own
 * destination (sonic-boom) does the writing of each chunk: partial writes and a full pipe
 * (EAGAIN) are its business.
 */
export function createBatchedStdout(): LineSink {
  // 32 KB: a write() every ~130 access lines (at 4 KB, every 16 was still 1 % of the
  // gateway's CPU on the walk); the 250 ms flush bounds how late a line can be either way
  const destination = pino.destination({ dest: 1, sync: true, maxWrite: 64 * 1024 });
  const batcher = createLineBatcher((chunk) => {
    try {
      destination.write(chunk);
    } catch {
      // stdout closed (EPIPE) or gone: a log line is not worth a crash
    }
  });
  setInterval(batcher.flush, BATCHED_FLUSH_MS).unref();
  process.once('exit', batcher.flush);
  return batcher;
}

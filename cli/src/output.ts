/**
 * Rendering for people and for scripts. Every command produces a Rendered pair; with
 * --json only `json` reaches stdout (one document on one line, nothing else: JSON Lines, so a
 * script reads each object with one line read), otherwise only `human`. Notices (warnings,
 * hints) always go to stderr so stdout stays parseable.
 */
export interface Rendered {
  json: unknown;
  human: string;
  /** The command already wrote its output (an export streamed to stdout): print nothing. */
  streamed?: boolean;
}

/** Where output goes; tests pass collectors instead of the process streams. */
export interface Streams {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const processStreams: Streams = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** Prints a command's result in the chosen mode, always ending with a newline. */
export function printResult(streams: Streams, json: boolean, result: Rendered): void {
  if (result.streamed) return;
  streams.stdout(json ? `${JSON.stringify(result.json)}\n` : withNewline(result.human));
}

/** A refusal or failure, as printed: the service's code and its message, unchanged. */
export interface Failure {
  code: string;
  message: string;
  details?: unknown;
}

/**
 * Prints a failure: always `error: <message>` on stderr; with --json also
 * `{"error":{"code","message"}}` on stdout, so a script reading stdout sees why.
 */
export function printFailure(streams: Streams, json: boolean, failure: Failure): void {
  streams.stderr(`error: ${failure.message}\n`);
  if (json) {
    const error: Failure = { code: failure.code, message: failure.message };
    if (failure.details !== undefined) error.details = failure.details;
    streams.stdout(`${JSON.stringify({ error })}\n`);
  }
}

/**
 * Left-aligned columns separated by two spaces, with a header row and a dashed rule.
 * Cells are single-line; the last column is not padded (no trailing spaces).
 */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Aligned `label  value` lines, e.g. for one brand or one key. */
export function formatFields(fields: Array<[label: string, value: string]>): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${value}`.trimEnd()).join('\n');
}

/** Indents every non-empty line, for blocks nested under a heading. */
export function indent(text: string, spaces = 2): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((l) => (l === '' ? l : pad + l))
    .join('\n');
}

/**
 * An RFC 3339 timestamp shortened for tables: "2025-01-31T09:15:02.123456Z" becomes
 * "2025-01-31 09:15:02Z". Absent values print as "-"; anything unrecognised is kept.
 */
export function shortTime(value: string | undefined): string {
  if (value === undefined || value === '') return '-';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(value);
  return m ? `${m[1]} ${m[2]}Z` : value;
}

export const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/**
 * A whole number with thousands separators, "100,000". Not toLocaleString: the first use of
 * Intl loads ICU's locale data (about 25 ms), and the help texts built at every start of
 * brandctl would pay it even for `--help`.
 */
export function groupedNumber(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

import type { Writable } from 'node:stream';
import { AppError } from '../errors/appError';
import { csvLine } from './csv';

/**
 * The most rows one export carries (docs/console.md#exports): an export is streamed, so the
 * bound is about how long one download may hold a connection and the services' pools, not
 * memory. When it cuts the range, the export says so in its last line.
 */
export const EXPORT_MAX_ROWS = 100_000;

export type ExportFormat = 'csv' | 'jsonl';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson',
};

/** The format asked for; validation_failed on `format` for anything but csv and jsonl. */
export function parseExportFormat(value: string): ExportFormat {
  if (value === 'csv' || value === 'jsonl') return value;
  throw new AppError('validation_failed', 'format: must be csv or jsonl.', {
    details: [{ field: 'format', message: 'must be csv or jsonl' }],
  });
}

/** The columns of an export, in order: each row is an object with (at least) these keys. */
export type ExportRow = Record<string, string | number>;

/**
 * Writes rows to `out` as CSV (a header line first) or JSON Lines, waiting for the reader
 * when `out` is full, so memory holds one page whatever the range. Stops after `maxRows`;
 * when more rows were there, a last line says the export was cut and gives the cursor the
 * rest starts after (the same export with that cursor continues it). Does not end `out`.
 */
export async function writeExport(
  out: Writable,
  opts: {
    format: ExportFormat;
    columns: readonly string[];
    rows: AsyncIterable<ExportRow>;
    maxRows: number;
    /** The cursor that continues after a row, for the "cut here" line. */
    cursorAfter: (row: ExportRow) => string;
  },
): Promise<{ written: number; truncated: boolean }> {
  // A reader that goes away mid-export ends the walk (and the services' reads) at once.
  const write = async (text: string) => {
    if (out.destroyed) throw new Error('the export reader went away');
    if (!out.write(text)) await drainedOrClosed(out);
  };
  if (opts.format === 'csv') await write(csvLine(opts.columns));
  let written = 0;
  let last: ExportRow | undefined;
  for await (const row of opts.rows) {
    if (written === opts.maxRows) {
      await write(truncationLine(opts.format, opts.maxRows, last ? opts.cursorAfter(last) : ''));
      return { written, truncated: true };
    }
    await write(
      opts.format === 'csv'
        ? csvLine(opts.columns.map((c) => row[c] ?? ''))
        : `${JSON.stringify(pick(row, opts.columns))}\n`,
    );
    written += 1;
    last = row;
  }
  return { written, truncated: false };
}

function pick(row: ExportRow, columns: readonly string[]): ExportRow {
  return Object.fromEntries(columns.map((c) => [c, row[c] ?? '']));
}

/** The last line of a cut export: a one-cell CSV row, or a JSON line with "truncated". */
function truncationLine(format: ExportFormat, maxRows: number, cursor: string): string {
  const sentence = `Export cut at ${maxRows.toLocaleString('en')} rows (the maximum); the rest of the range is older: export again with cursor=${cursor}.`;
  return format === 'csv'
    ? csvLine([`# ${sentence}`])
    : `${JSON.stringify({ truncated: true, max_rows: maxRows, cursor, message: sentence })}\n`;
}

function drainedOrClosed(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

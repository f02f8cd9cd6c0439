import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  EXPORT_MAX_ROWS,
  writeExport,
  type ExportFormat,
  type ExportRow,
} from '@brand/shared/export';
import { groupedNumber, type Rendered } from './output';

/** --format: an export of the whole filtered range to stdout instead of one page. */
export function addExportOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--format <format>',
        `export every match (newest first, at most ${groupedNumber(EXPORT_MAX_ROWS)}) to stdout, streamed`,
      ).choices(['csv', 'jsonl']),
    )
    .option('--all', `every page, not one (at most ${groupedNumber(EXPORT_MAX_ROWS)} entries)`)
    .option('--cursor <cursor>', 'start after this cursor (next_cursor of the previous page)');
}

/** Streams rows to stdout as CSV or JSON Lines (the console's export, the same bound and escaping). */
export async function exportToStdout(opts: {
  format: ExportFormat;
  columns: readonly string[];
  rows: AsyncIterable<ExportRow>;
  cursorAfter: (row: ExportRow) => string;
  notice: (text: string) => void;
}): Promise<Rendered> {
  const r = await writeExport(process.stdout, { ...opts, maxRows: EXPORT_MAX_ROWS });
  if (r.truncated)
    opts.notice(
      `The export stopped at ${EXPORT_MAX_ROWS} rows; its last line says where the rest starts.`,
    );
  return { json: null, human: '', streamed: true };
}

/** Takes at most EXPORT_MAX_ROWS from a walk (--all), saying when the bound cut it. */
export async function collectAll<T>(
  walk: AsyncIterable<T>,
  notice: (text: string) => void,
): Promise<T[]> {
  const out: T[] = [];
  for await (const item of walk) {
    if (out.length === EXPORT_MAX_ROWS) {
      notice(
        `Stopped at ${EXPORT_MAX_ROWS} entries; narrow the filters or use --format for an export.`,
      );
      break;
    }
    out.push(item);
  }
  return out;
}

/** --limit: a page of 1..199 (the services' 200 less the one that tells whether more follow). */
export function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 199) throw new InvalidArgumentError('must be 1..199.');
  return n;
}

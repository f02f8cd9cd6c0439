import type { Response } from 'express';
import type { Logger } from '@brand/shared/logger';
import {
  EXPORT_CONTENT_TYPES,
  EXPORT_MAX_ROWS,
  writeExport,
  type ExportFormat,
  type ExportRow,
} from '@brand/shared/export';
import { ConsoleHttpError } from './consoleHttpError';
import { PlacesByKey } from './placesByKey';

/**
 * The exports one brand may run at once in this console process (docs/console.md#exports): each
 * walks the services a page at a time while its reader reads, so without a bound one brand's
 * members (or a script with a session) could keep the console's thread and the services' pools
 * busy for every brand. Past it: 429 export_busy with Retry-After, before anything is read.
 */
const EXPORTS_PER_BRAND = 2;
const exportsByBrand = new PlacesByKey(EXPORTS_PER_BRAND);
const EXPORT_BUSY_RETRY_AFTER_S = 30;

/**
 * Streams an export as a download: an attachment named after what it holds and when, the
 * format's content type, never cached. The first rows are read before any header goes out,
 * so a refusal (bad cursor, a service down) is still an error page; after that a failure
 * can only cut the connection, which the browser or curl reports as a failed download
 * rather than a complete-looking file.
 */
export async function sendExport(
  res: Response,
  log: Logger,
  opts: {
    brandId: string;
    name: string;
    format: ExportFormat;
    columns: readonly string[];
    rows: AsyncGenerator<ExportRow>;
    cursorAfter: (row: ExportRow) => string;
  },
): Promise<void> {
  await exportsByBrand.run(
    opts.brandId,
    () => sendOne(res, log, opts),
    () => {
      res.setHeader('Retry-After', String(EXPORT_BUSY_RETRY_AFTER_S));
      throw new ConsoleHttpError(
        429,
        'export_busy',
        `${EXPORTS_PER_BRAND} exports of this brand are running already, the most at once. Try again when one has finished (in about ${EXPORT_BUSY_RETRY_AFTER_S} seconds).`,
      );
    },
  );
}

async function sendOne(
  res: Response,
  log: Logger,
  opts: Parameters<typeof sendExport>[2],
): Promise<void> {
  const first = await opts.rows.next();
  async function* all(): AsyncGenerator<ExportRow> {
    if (first.done) return;
    yield first.value;
    yield* opts.rows;
  }
  const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '');
  res.status(200);
  res.setHeader('Content-Type', EXPORT_CONTENT_TYPES[opts.format]);
  res.setHeader(
    'Content-Disposition',
    `attachment; filename="${opts.name}-${stamp}Z.${opts.format}"`,
  );
  res.setHeader('Cache-Control', 'no-store');
  try {
    await writeExport(res, { ...opts, rows: all(), maxRows: EXPORT_MAX_ROWS });
    res.end();
  } catch (err) {
    log.warn({ err, export: opts.name }, 'export cut short');
    res.destroy();
  }
}

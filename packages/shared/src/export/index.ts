export { csvCell } from './csv';
export {
  EXPORT_CONTENT_TYPES,
  EXPORT_MAX_ROWS,
  parseExportFormat,
  writeExport,
  type ExportFormat,
  type ExportRow,
} from './exportWriter';
export { parseTimeBound, parseTimeRange } from './timeBound';

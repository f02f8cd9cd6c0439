/**
 * CSV (RFC 4180) for exports opened in spreadsheets. A cell starting with = + - @ (or a tab or
 * carriage return, which some spreadsheets skip before reading a formula) is prefixed with a
 * single quote so that it is shown as text, never run as a formula (OWASP "CSV injection");
 * a cell with a comma, quote or line break is quoted, its quotes doubled.
 */
export function csvCell(value: string | number): string {
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line, CRLF-terminated as RFC 4180 says. */
export function csvLine(cells: readonly (string | number)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * The fixed notice a page's `?done=` names, from the page's own table: only the table's own
 * keys count (Object.hasOwn), so `?done=constructor`, `?done=__proto__` or `?done=toString`
 * (read through the object's prototype by a plain `table[done]`) draw no notice at all instead
 * of an empty notice box. Anything but one string (a repeated `?done=`) is no notice either.
 */
export function doneNoticeOf(
  table: Readonly<Record<string, string>>,
  done: unknown,
): string | undefined {
  return typeof done === 'string' && Object.hasOwn(table, done) ? table[done] : undefined;
}

/**
 * Where a long identifier may wrap, as <wbr> points (the browser breaks there only when the cell
 * is too narrow): a path before each slash ("/api/v1/ campaigns", not "/api/v1/cam paigns"), a
 * dotted name after each dot ("key. revoked", not "key.revoke d").
 */
export function breaksBefore(separator: string, text: string) {
  return text.split(separator).map((part, i) => (i === 0 ? part : [<wbr />, separator, part]));
}

/** See breaksBefore: the wrap point follows each separator. */
export function breaksAfter(separator: string, text: string) {
  const parts = text.split(separator);
  return parts.map((part, i) => (i === parts.length - 1 ? part : [part, separator, <wbr />]));
}

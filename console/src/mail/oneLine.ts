/** A value from outside on one line, bounded (a label in a subject, a URL in a body). */
export function oneLine(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- line breaks and controls are what is removed
  const flat = value.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

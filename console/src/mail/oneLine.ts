import { firstCharacters } from '@brand/shared/text';

/** A value from outside on one line, bounded (a label in a subject, a URL in a body). */
export function oneLine(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- line breaks and controls are what is removed
  const flat = value.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();
  // by characters (code points): a cut between an emoji's two UTF-16 halves mailed U+FFFD
  return firstCharacters(flat, max) === flat ? flat : `${firstCharacters(flat, max - 1)}…`;
}

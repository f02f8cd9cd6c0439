import type { Repeat } from './submitOnce';

/**
 * Where a repeated create (or roll, or rotate) form goes (submitOnce.ts): the first post's answer
 * while it is still worth showing, else the list with `?repeat=`, whose notice says what became
 * of the first post: `words` are the page's own values for it (repeatNotice reads the default).
 */
export const repeatLocation = (
  listPath: string,
  repeat: Repeat,
  words: { created: string; unfinished: string } = { created: 'created', unfinished: 'unfinished' },
): string =>
  repeat.location ?? `${listPath}?repeat=${repeat.created ? words.created : words.unfinished}`;

/**
 * The list's notice for `?repeat=`: `created` is the page's own sentence (what was created,
 * what to do if nobody copied its secret); undefined for any other value.
 */
export function repeatNotice(repeat: unknown, created: string, thing: string): string | undefined {
  if (repeat === 'created') return created;
  if (repeat === 'unfinished') {
    return `This form was already submitted, and that submission did not finish. Check the list below before creating the ${thing} again.`;
  }
  return undefined;
}

import type { Repeat } from './submitOnce';

/**
 * Where a repeated create form goes (submitOnce.ts): the first post's answer while it is still
 * worth showing, else the list with `?repeat=`, which repeatNotice reads.
 */
export const repeatLocation = (listPath: string, repeat: Repeat): string =>
  repeat.location ?? `${listPath}?repeat=${repeat.created ? 'created' : 'unfinished'}`;

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

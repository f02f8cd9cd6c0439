/** A number as people read it, with thousands separators: "14,400". */
export const formatCount = (n: number): string => n.toLocaleString('en-US');

/** A count with its noun, singular for one: "1 request", "14,400 requests" (nouns taking an s). */
export const counted = (n: number, noun: string): string =>
  `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;

/** A count with its noun, singular for one: "1 request", "2 requests" (nouns taking an s). */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

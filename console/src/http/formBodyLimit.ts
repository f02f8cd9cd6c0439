/**
 * The most a form post may carry, in kB (express.urlencoded's limit). The console's longest
 * field (a receiver's or a stream's URL, 2048 characters) fits many times over; a page past it
 * is a paste gone wrong, and the too-large page names the limit in the same figure.
 */
export const FORM_BODY_LIMIT_KB = 32;

/** A session id as records mints them ("ses_" and base62); anything else is 404 at once. */
export const SESSION_ID = /^ses_[A-Za-z0-9]{1,64}$/;

import { AppError } from '@brand/shared/errors';

/** Where ceremonies happen: the console's origin, and its host as the WebAuthn RP ID. */
export interface RelyingParty {
  origin: string;
  rpID: string;
}

/**
 * The relying party of the console that asks. The console names its public origin
 * (CONSOLE_PUBLIC_URL) on every call; records checks each browser answer was made for exactly
 * that origin, so an answer made on any other site does not verify. Anything but a bare
 * http(s) origin is refused.
 */
export function relyingPartyOf(origin: string): RelyingParty {
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin) {
    throw new AppError('validation_failed', 'origin must be an http(s) origin.');
  }
  return { origin, rpID: url.hostname };
}

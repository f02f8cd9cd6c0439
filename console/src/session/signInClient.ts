import type { Request } from 'express';
import type { SignInClient } from '@brand/proto/access/v1/sessions';

/**
 * What records keeps with a new session so its owner can recognise it on "Your sessions": the
 * browser's User-Agent and the client address (the proxy's X-Forwarded-For only when
 * TRUST_PROXY says to believe it). Records bounds both.
 */
export function signInClientOf(req: Request): SignInClient {
  return { user_agent: req.get('user-agent') ?? '', address: req.ip ?? '' };
}

import type { RequestHandler } from 'express';
import { withClientOrigin } from '@brand/shared/grpc';

/**
 * Serves each request as its client's: the address (X-Forwarded-For only when TRUST_PROXY
 * says to believe it, as req.ip does) and the User-Agent header are kept for the request's
 * duration, and every call the console makes to a service meanwhile carries them
 * (clients/memberCaller.ts), so the activity rows it causes name the browser (issue 42).
 */
export function clientOrigin(): RequestHandler {
  return (req, _res, next) => {
    withClientOrigin({ clientAddress: req.ip ?? '', userAgent: req.get('user-agent') ?? '' }, next);
  };
}

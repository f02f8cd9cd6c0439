import type { RequestHandler } from 'express';
import { AppError } from '@brand/shared/errors';

/** 405 with the Allow header; the API is read-only except where a route says otherwise. */
export function methodNotAllowed(allowed: string[]): RequestHandler {
  return (req, res) => {
    res.setHeader('Allow', allowed.join(', '));
    throw new AppError(
      'method_not_allowed',
      `${req.method} is not allowed here; use ${allowed.join(' or ')}.`,
    );
  };
}

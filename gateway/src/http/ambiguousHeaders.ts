import type { RequestHandler } from 'express';
import { AppError } from '@brand/shared/errors';

/** Headers that must appear at most once: which key or host was meant would be a guess. */
const SINGLE = ['authorization', 'host'];

/**
 * Refuses a request carrying two Authorization or two Host headers with 400: Node keeps
 * the first and drops the rest, so a proxy reading the last one and this gateway would
 * disagree about who is calling or where.
 */
export function refuseAmbiguousHeaders(): RequestHandler {
  return (req, _res, next) => {
    const counts = new Map<string, number>();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!.toLowerCase();
      if (SINGLE.includes(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    for (const [name, count] of counts) {
      if (count > 1) {
        throw new AppError(
          'malformed_request',
          `The request carries ${count} ${name === 'host' ? 'Host' : 'Authorization'} headers; send exactly one.`,
        );
      }
    }
    next();
  };
}

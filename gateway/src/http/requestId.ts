import type { RequestHandler, Response } from 'express';
import { newId } from '@brand/shared/ids';

/** A caller's own id is kept when it is safe to log and echo; otherwise we mint one. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Gives every request an id, echoed in X-Request-Id, written in every log line and error
 * body, and passed to the services in gRPC metadata.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = incoming && ACCEPTABLE_ID.test(incoming) ? incoming : newId('request');
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}

/** The id requestId() assigned to this response's request. */
export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'req_unknown';
}

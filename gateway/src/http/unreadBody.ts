import type { RequestHandler } from 'express';

/**
 * Closes the connection after answering a request whose body was not read (a 401 before an
 * upload, a 413): Node would otherwise keep draining the body to reuse the connection, so a
 * client sending one byte a second could hold it until the request deadline and then get a
 * stray 408. `Connection: close` tells the client, and the socket ends with the response.
 */
export function closeWhenBodyUnread(): RequestHandler {
  return (req, res, next) => {
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((...args: Parameters<typeof writeHead>) => {
      if (!req.complete) res.setHeader('Connection', 'close');
      return writeHead(...args);
    }) as typeof res.writeHead;
    next();
  };
}

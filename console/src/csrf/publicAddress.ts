import type { Request } from 'express';

/** localhost, 127.x.x.x and [::1]: the names one machine answers to. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Where a page opened at another name of the console belongs: the same path at the public
 * origin, or undefined to serve it where it is. Only between loopback names (the console opened
 * at 127.0.0.1 while it is http://localhost:8090): its session cookie and every form's Origin
 * are bound to the public origin, so at another name nothing would work. Any other Host is
 * left alone: a proxy that rewrites Host to the upstream's would otherwise loop forever.
 */
export function publicAddressOf(publicOrigin: string): (req: Request) => string | undefined {
  const origin = new URL(publicOrigin);
  if (!isLoopback(origin.hostname)) return () => undefined;
  return (req) => {
    const host = req.get('host');
    if (host === undefined || host === origin.host) return undefined;
    const asked = new URL(`http://${host}`);
    if (!isLoopback(asked.hostname) || asked.port !== origin.port) return undefined;
    return `${publicOrigin}${req.originalUrl}`;
  };
}

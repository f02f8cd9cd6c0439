import { type Server } from 'node:net';

/** Binds `server` and resolves with the bound port (useful with port 0); rejects on bind errors. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** The base URL of a bound server; IPv6 literals need brackets. */
export function baseUrl(scheme: 'http' | 'https', host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Stops accepting, then ends open connections too (a scripted hang would otherwise keep close() waiting). */
export function closeServer(server: Server & { closeAllConnections?: () => void }): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

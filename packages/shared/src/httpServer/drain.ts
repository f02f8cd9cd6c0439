// The drain of an HTTP process behind a load balancer (the gateway and the console): after
// SIGTERM it reports not ready and keeps serving for SHUTDOWN_DRAIN_MS, telling every client
// it answers to reconnect, so the balancer stops sending before the listener closes.
import type { RequestListener, Server, ServerResponse } from 'node:http';
import type { ShutdownStep } from '../shutdown';

/** Whether the process still takes work: false once shutdown has begun (/readyz reports it). */
export interface ServingState {
  accepting: boolean;
}

/**
 * `Connection: close` on an answer once shutdown has begun, so a keep-alive client (a
 * balancer, an SDK client, a browser) leaves after this request and reconnects, by then to
 * another replica, instead of holding the process or sending on a connection about to close.
 */
export function closeWhenDraining(state: ServingState, res: ServerResponse): void {
  if (!state.accepting) res.setHeader('Connection', 'close');
}

/** `listener` with closeWhenDraining ahead of it, for a process without a request prelude. */
export function closingWhenDraining(
  state: ServingState,
  listener: RequestListener,
): RequestListener {
  return (req, res) => {
    closeWhenDraining(state, res);
    listener(req, res);
  };
}

/**
 * The first two steps of the shutdown of a public HTTP listener: report not ready (`state`,
 * which /readyz reads) and keep serving for `drainMs` while balancers notice, then stop
 * accepting connections and let the requests in flight finish. Give onShutdown a grace
 * period of `drainMs` plus the time those requests may take.
 */
export function drainHttpSteps(opts: {
  server: Server;
  state: ServingState;
  drainMs: number;
}): ShutdownStep[] {
  const { server, state, drainMs } = opts;
  return [
    {
      // From here on every answer also carries Connection: close (closeWhenDraining).
      name: 'report not ready, keep serving while balancers notice',
      run: async () => {
        state.accepting = false;
        await new Promise((resolve) => setTimeout(resolve, drainMs));
      },
    },
    {
      name: 'stop accepting connections and finish in-flight requests',
      run: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
    },
  ];
}

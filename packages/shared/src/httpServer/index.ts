// Listening and closing an HTTP server, apart from @brand/shared/service: the gateway and the
// console serve HTTP only, and that module also loads the gRPC services' start (PostgreSQL's
// client and the gRPC server with it), about 8 % of their start.
import type { Server } from 'node:http';

/** Listens and resolves with the bound port (port 0: one the OS chose). */
export function listenHttp(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Stops listening and drops every connection, idle or not (the operations listener's end). */
export function closeHttpServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export { ambiguousHeaderError } from './ambiguousHeaders';
export { clientAddressKey } from './clientAddressKey';
export { closeWhenDraining, closingWhenDraining, drainHttpSteps, type ServingState } from './drain';
export {
  createPublicHttpServer,
  protocolRefusalOf,
  type ProtocolRefusal,
  type RefusalBody,
} from './protocolRefusals';
export { isUtf8Body, NOT_UTF8_MESSAGE, NOT_UTF8_TYPE, refuseNonUtf8 } from './utf8Body';

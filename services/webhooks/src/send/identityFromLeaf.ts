import { TLSSocket, type PeerCertificate } from 'node:tls';

/**
 * Has node check the receiver's name at the end of this socket's full handshake against the
 * receiver's own certificate read alone, not against its whole chain as objects. Call it on a
 * client socket before its handshake ends (undici's connector returns the socket at once).
 *
 * Why (issue 64, S10): after every full handshake node 20 calls `getPeerCertificate(true)`
 * (`onConnectSecure` in lib/_tls_wrap.js) only to hand `checkServerIdentity` the certificate,
 * of which it reads `subject` and `subjectaltname`. Detailed, that builds every certificate of
 * the chain as an object, fingerprints, public keys and raw DER included, each decoded again by
 * OpenSSL 3.0's provider decoders: 0.23-0.27 ms against 0.02 for the leaf alone. A full
 * handshake's client CPU is 1.91-2.21 ms against 1.59-1.64 with this, the worker's first
 * contact with a receiver 0.24-0.38 ms less (`node scripts/bench/newConnectionCost.mjs`). Every
 * receiver met for the first time, or whose TLS session lapsed, pays it: over 10,000 receivers
 * from a cold start, 1,885 of a day's 3,132 new connections (S10).
 *
 * What is checked does not change: OpenSSL verifies the chain to a trusted root before node
 * asks (its verifyError comes first, and a failure there never reaches the name check), and
 * `checkServerIdentity`, node's own, gets the same leaf fields it reads. The override answers
 * only until the handshake ends: before any listener hears of the connection, the socket's
 * method is node's again. Drop this if a `checkServerIdentity` that reads the chain
 * (`issuerCertificate`) is ever configured.
 */
export function checkIdentityOnLeaf(socket: TLSSocket): void {
  // answers node's detailed ask with the leaf: the point (the fields it reads are the same)
  socket.getPeerCertificate = leafCertificate as TLSSocket['getPeerCertificate'];
  const restore = (): void => void Reflect.deleteProperty(socket, 'getPeerCertificate');
  // first among the listeners: node's method is back before anyone else hears of the connection
  socket.prependOnceListener('secureConnect', restore).once('close', restore);
}

function leafCertificate(this: TLSSocket): PeerCertificate {
  return TLSSocket.prototype.getPeerCertificate.call(this, false);
}

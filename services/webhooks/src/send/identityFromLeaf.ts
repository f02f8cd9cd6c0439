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
 * OpenSSL 3.0's provider decoders: 0.23-0.27 ms against 0.02 for the leaf alone, and a full
 * handshake of the worker's 2.57-2.92 ms against 1.97-2.30 with this (500 each, three rounds:
 * `node scripts/bench/newConnectionCost.mjs`). Over 10,000 receivers most new connections are
 * first contacts, so every one of them paid it.
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

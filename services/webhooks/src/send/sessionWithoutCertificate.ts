/**
 * A TLS client session (OpenSSL's DER of SSL_SESSION, as node's `'session'` event gives it) with
 * the receiver's certificate left out, for the next connection to that receiver to resume.
 *
 * Why (issue 64, S10): node offers a session to a new connection only as DER, and OpenSSL 3.0
 * decodes the certificate in it at every connection, its public key through the provider
 * decoders: 30 % of a resumed connection's client CPU (BENCHMARKS.md, 2026-11-28 night). A
 * resumed connection never reads that certificate: node checks the server's name only when the
 * session was not resumed (`onConnectSecure`), and the verification result it reads is the
 * session's own field, kept here. A receiver that declines the session gets a full handshake,
 * whose chain and name are verified as at a first contact.
 *
 * The session is a SEQUENCE of fields, the certificate the one tagged [3] (OpenSSL's
 * ssl_asn1.c). Anything this reader does not expect comes back unchanged: the session is then
 * offered as node gave it. Not an ASN.1 library (asn1js is in the tree, through records'
 * passkeys): it would decode the certificate this skips and encode every other field again,
 * where this copies them byte for byte, so OpenSSL reads back exactly what it wrote.
 */
export function sessionWithoutCertificate(session: Buffer): Buffer {
  const top = readTlv(session, 0);
  if (!top || top.tag !== SEQUENCE || top.end !== session.length) return session;
  const kept: Buffer[] = [];
  let dropped = false;
  for (let at = top.contentStart; at < top.end;) {
    const field = readTlv(session, at);
    if (!field || field.end > top.end) return session;
    if (field.tag === PEER_CERTIFICATE) dropped = true;
    else kept.push(session.subarray(at, field.end));
    at = field.end;
  }
  if (!dropped) return session;
  const content = Buffer.concat(kept);
  return Buffer.concat([Buffer.from([SEQUENCE]), derLength(content.length), content]);
}

const SEQUENCE = 0x30;
/** [3] EXPLICIT, constructed: SSL_SESSION's peer certificate. */
const PEER_CERTIFICATE = 0xa3;

interface Tlv {
  tag: number;
  contentStart: number;
  end: number;
}

/** One DER element at `at` (one-byte tags, definite lengths up to 4 bytes), or undefined. */
function readTlv(der: Buffer, at: number): Tlv | undefined {
  if (at + 2 > der.length) return undefined;
  const tag = der[at]!;
  if ((tag & 0x1f) === 0x1f) return undefined;
  let length = der[at + 1]!;
  let contentStart = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || contentStart + bytes > der.length) return undefined;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[contentStart + i]!;
    contentStart += bytes;
  }
  const end = contentStart + length;
  return end <= der.length ? { tag, contentStart, end } : undefined;
}

/** DER's shortest length octets for `n`. */
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

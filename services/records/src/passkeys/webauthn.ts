/**
 * @simplewebauthn/server, loaded on the first passkey ceremony rather than at start: it and
 * the CBOR, ASN.1 and X.509 code under it are a tenth of records' start-up CPU, and most
 * records processes (and every test stack that signs in by link) never verify a passkey.
 */
export const webauthn = () => import('@simplewebauthn/server');

import type { SecretBox } from '@brand/shared/secrets';
import type { ProviderClient } from './oidcClient';

/** What opening a connection's client needs (a row of sso_connections). */
interface SealedConnection {
  brand_id: string;
  issuer: string;
  client_id: string;
  client_secret_ciphertext: Buffer;
  client_secret_key_id: string;
}

/** The brand's client at its provider, with the client secret opened. */
export function providerClientOf(box: SecretBox, c: SealedConnection): ProviderClient {
  const clientSecret = box.open(
    { ciphertext: c.client_secret_ciphertext, keyId: c.client_secret_key_id },
    c.brand_id,
  );
  return { issuer: c.issuer, clientId: c.client_id, clientSecret };
}

import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import { readSecretFile } from '../config/secretFiles';
import { mskIamTokenProvider } from './mskIam';
import type { KafkaSecuritySettings } from './securityEnv';

/** The kafkajs `ssl` and `sasl` options of a client; both unset for a plaintext cluster. */
export interface KafkaClientSecurity {
  ssl?: ConnectionOptions | boolean;
  sasl?: SASLOptions;
}

/**
 * kafkajs's security options from settings checkKafkaSecurity accepted, reading the files
 * they name now (a rotated Secret takes effect on the next start). Throws if a file
 * vanished since the check. The token provider of aws-msk-iam signs on each authentication.
 */
export function kafkaClientSecurity(
  settings: KafkaSecuritySettings,
  tokenProvider: typeof mskIamTokenProvider = mskIamTokenProvider,
): KafkaClientSecurity {
  const security: KafkaClientSecurity = {};
  if (settings.KAFKA_SSL) {
    const tls: ConnectionOptions = { rejectUnauthorized: true };
    if (settings.KAFKA_SSL_CA_FILE) tls.ca = readSecretFile(settings.KAFKA_SSL_CA_FILE);
    if (settings.KAFKA_SSL_CERT_FILE) tls.cert = readSecretFile(settings.KAFKA_SSL_CERT_FILE);
    if (settings.KAFKA_SSL_KEY_FILE) tls.key = readSecretFile(settings.KAFKA_SSL_KEY_FILE);
    security.ssl = tls;
  }
  const mechanism = settings.KAFKA_SASL_MECHANISM;
  if (mechanism === 'aws-msk-iam') {
    security.sasl = {
      mechanism: 'oauthbearer',
      oauthBearerProvider: tokenProvider(settings.KAFKA_SASL_AWS_REGION ?? ''),
    };
  } else if (mechanism !== undefined) {
    const username = settings.KAFKA_SASL_USERNAME ?? '';
    const password = settings.KAFKA_SASL_PASSWORD_FILE
      ? readSecretFile(settings.KAFKA_SASL_PASSWORD_FILE)
      : (settings.KAFKA_SASL_PASSWORD ?? '');
    security.sasl = { mechanism, username, password };
  }
  return security;
}

import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import { defineLiveFileProperty } from '../config/secretFiles';
import { mskIamTokenProvider } from './mskIam';
import type { KafkaSecuritySettings } from './securityEnv';

/** The kafkajs `ssl` and `sasl` options of a client; both unset for a plaintext cluster. */
export interface KafkaClientSecurity {
  ssl?: ConnectionOptions | boolean;
  sasl?: SASLOptions;
}

/**
 * kafkajs's security options from settings checkKafkaSecurity accepted. The files they name
 * (CA, client certificate and key, SASL password) are read when a connection opens and read
 * again once they change (defineLiveFileProperty): kafkajs spreads `ssl` into each TLS connect
 * and reads `sasl.password` at each authentication, so a rotated Secret reaches new
 * connections without a restart (issue 60). The token provider of aws-msk-iam signs on each
 * authentication.
 */
export function kafkaClientSecurity(
  settings: KafkaSecuritySettings,
  tokenProvider: typeof mskIamTokenProvider = mskIamTokenProvider,
): KafkaClientSecurity {
  const security: KafkaClientSecurity = {};
  if (settings.KAFKA_SSL) {
    const tls: ConnectionOptions = { rejectUnauthorized: true };
    if (settings.KAFKA_SSL_CA_FILE) defineLiveFileProperty(tls, 'ca', settings.KAFKA_SSL_CA_FILE);
    if (settings.KAFKA_SSL_CERT_FILE)
      defineLiveFileProperty(tls, 'cert', settings.KAFKA_SSL_CERT_FILE);
    if (settings.KAFKA_SSL_KEY_FILE)
      defineLiveFileProperty(tls, 'key', settings.KAFKA_SSL_KEY_FILE);
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
    const sasl = { mechanism, username, password: settings.KAFKA_SASL_PASSWORD ?? '' };
    if (settings.KAFKA_SASL_PASSWORD_FILE)
      defineLiveFileProperty(sasl, 'password', settings.KAFKA_SASL_PASSWORD_FILE);
    security.sasl = sasl;
  }
  return security;
}

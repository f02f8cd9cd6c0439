import { z } from 'zod';
import { boolEnv, optionalEnv } from '../config/envTypes';
import { unreadableFileReason } from '../config/secretFiles';

/** The SASL mechanisms a Kafka client may use (KAFKA_SASL_MECHANISM). */
export const KAFKA_SASL_MECHANISMS = [
  'plain',
  'scram-sha-256',
  'scram-sha-512',
  'aws-msk-iam',
] as const;

/**
 * How a process reaches Kafka securely (docs/operating.md "Kafka security"), to spread into
 * the Env schema of every process with a Kafka client; checkKafkaSecurity is its superRefine.
 * Secrets come from files (a mounted Secret) or, for the password only, the environment.
 */
export const kafkaSecurityEnv = {
  /** TLS to every broker (SSL or SASL_SSL listeners). */
  KAFKA_SSL: boolEnv.default(false),
  /** PEM file of the CA(s) that signed the brokers' certificates; unset: the system's CAs. */
  KAFKA_SSL_CA_FILE: optionalEnv(z.string().min(1)),
  /** PEM client certificate and its key, for brokers that require mutual TLS. */
  KAFKA_SSL_CERT_FILE: optionalEnv(z.string().min(1)),
  KAFKA_SSL_KEY_FILE: optionalEnv(z.string().min(1)),
  /** plain | scram-sha-256 | scram-sha-512 | aws-msk-iam; unset: no SASL. */
  KAFKA_SASL_MECHANISM: optionalEnv(z.enum(KAFKA_SASL_MECHANISMS)),
  /** The SASL user (plain and scram; Confluent Cloud: the API key). */
  KAFKA_SASL_USERNAME: optionalEnv(z.string().min(1)),
  /** The SASL password; prefer KAFKA_SASL_PASSWORD_FILE (a mounted Secret). */
  KAFKA_SASL_PASSWORD: optionalEnv(z.string().min(1)),
  /** A file holding the SASL password (one trailing newline is ignored). */
  KAFKA_SASL_PASSWORD_FILE: optionalEnv(z.string().min(1)),
  /** The AWS region of an MSK cluster (aws-msk-iam); credentials come from the AWS default chain. */
  KAFKA_SASL_AWS_REGION: optionalEnv(
    z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as eu-west-1'),
  ),
};

/** The settings of kafkaSecurityEnv, as parsed. */
export interface KafkaSecuritySettings {
  KAFKA_SSL: boolean;
  KAFKA_SSL_CA_FILE?: string | undefined;
  KAFKA_SSL_CERT_FILE?: string | undefined;
  KAFKA_SSL_KEY_FILE?: string | undefined;
  KAFKA_SASL_MECHANISM?: (typeof KAFKA_SASL_MECHANISMS)[number] | undefined;
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
  KAFKA_SASL_PASSWORD_FILE?: string | undefined;
  KAFKA_SASL_AWS_REGION?: string | undefined;
}

type Name = keyof KafkaSecuritySettings;

/**
 * A superRefine step: every combination of the Kafka security settings that cannot work is
 * an issue on the variable to change, saying why (a file that cannot be read, a setting that
 * belongs to another mechanism, a password sent in clear), so the process refuses to start
 * with one line per mistake instead of failing to authenticate later.
 */
export function checkKafkaSecurity(env: KafkaSecuritySettings, ctx: z.RefinementCtx): void {
  const issue = (path: Name, message: string): void => {
    ctx.addIssue({ code: 'custom', path: [path], message });
  };
  const tlsFiles = ['KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE'] as const;
  for (const name of tlsFiles) {
    const file = env[name];
    if (file === undefined) continue;
    if (!env.KAFKA_SSL) issue(name, 'is set but KAFKA_SSL is not true');
    else {
      const reason = unreadableFileReason(file);
      if (reason) issue(name, reason);
    }
  }
  if ((env.KAFKA_SSL_CERT_FILE === undefined) !== (env.KAFKA_SSL_KEY_FILE === undefined)) {
    const missing =
      env.KAFKA_SSL_CERT_FILE === undefined ? 'KAFKA_SSL_CERT_FILE' : 'KAFKA_SSL_KEY_FILE';
    issue(missing, 'is required with the other half of the client certificate (mutual TLS)');
  }

  const mechanism = env.KAFKA_SASL_MECHANISM;
  const userSettings = [
    'KAFKA_SASL_USERNAME',
    'KAFKA_SASL_PASSWORD',
    'KAFKA_SASL_PASSWORD_FILE',
  ] as const;
  if (mechanism === undefined) {
    for (const name of [...userSettings, 'KAFKA_SASL_AWS_REGION'] as const)
      if (env[name] !== undefined) issue(name, 'is set but KAFKA_SASL_MECHANISM is not');
    return;
  }
  if (mechanism === 'aws-msk-iam') {
    for (const name of userSettings)
      if (env[name] !== undefined)
        issue(name, 'does not apply to aws-msk-iam (credentials come from the AWS default chain)');
    if (env.KAFKA_SASL_AWS_REGION === undefined)
      issue('KAFKA_SASL_AWS_REGION', 'is required with KAFKA_SASL_MECHANISM=aws-msk-iam');
    if (!env.KAFKA_SSL)
      issue('KAFKA_SSL', 'must be true with aws-msk-iam (MSK serves IAM only over TLS)');
    return;
  }
  if (env.KAFKA_SASL_AWS_REGION !== undefined)
    issue('KAFKA_SASL_AWS_REGION', `applies only to aws-msk-iam, not to ${mechanism}`);
  if (env.KAFKA_SASL_USERNAME === undefined)
    issue('KAFKA_SASL_USERNAME', `is required with KAFKA_SASL_MECHANISM=${mechanism}`);
  if (env.KAFKA_SASL_PASSWORD !== undefined && env.KAFKA_SASL_PASSWORD_FILE !== undefined)
    issue('KAFKA_SASL_PASSWORD', 'and KAFKA_SASL_PASSWORD_FILE are both set: keep one');
  else if (env.KAFKA_SASL_PASSWORD === undefined && env.KAFKA_SASL_PASSWORD_FILE === undefined)
    issue('KAFKA_SASL_PASSWORD_FILE', `or KAFKA_SASL_PASSWORD is required with ${mechanism}`);
  else if (env.KAFKA_SASL_PASSWORD_FILE !== undefined) {
    const reason = unreadableFileReason(env.KAFKA_SASL_PASSWORD_FILE);
    if (reason) issue('KAFKA_SASL_PASSWORD_FILE', reason);
  }
  if (mechanism === 'plain' && !env.KAFKA_SSL)
    issue('KAFKA_SSL', 'must be true with plain (the password would cross the network in clear)');
}

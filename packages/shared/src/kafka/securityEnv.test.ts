import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../config';
import { kafkaClientSecurity } from './clientSecurity';
import { checkKafkaSecurity, kafkaSecurityEnv } from './securityEnv';

const Env = z.object(kafkaSecurityEnv).superRefine(checkKafkaSecurity);

// made when the file is loaded: the table of cases below names files in it
const dir = mkdtempSync(path.join(tmpdir(), 'kafka-security-'));
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The message loadConfig gives for `env`, or '' when it is accepted. */
function problems(env: Record<string, string>): string {
  try {
    loadConfig(Env, env);
    return '';
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
}

describe('Kafka security settings that work', () => {
  it('plaintext without settings', () => {
    expect(problems({})).toBe('');
    expect(kafkaClientSecurity(loadConfig(Env, {}))).toEqual({});
  });

  it('TLS with a CA file and a client certificate (mutual TLS)', () => {
    const ca = file('ca.pem', 'CA PEM\n');
    const cert = file('cert.pem', 'CERT PEM\n');
    const key = file('key.pem', 'KEY PEM\n');
    const env = {
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: ca,
      KAFKA_SSL_CERT_FILE: cert,
      KAFKA_SSL_KEY_FILE: key,
    };
    expect(problems(env)).toBe('');
    expect(kafkaClientSecurity(loadConfig(Env, env))).toEqual({
      ssl: { rejectUnauthorized: true, ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' },
    });
  });

  it('TLS with the system CAs (MSK, Confluent Cloud)', () => {
    expect(kafkaClientSecurity(loadConfig(Env, { KAFKA_SSL: 'true' }))).toEqual({
      ssl: { rejectUnauthorized: true },
    });
  });

  it.each(['plain', 'scram-sha-256', 'scram-sha-512'])(
    '%s with a password file over TLS',
    (mechanism) => {
      const env = {
        KAFKA_SSL: 'true',
        KAFKA_SASL_MECHANISM: mechanism,
        KAFKA_SASL_USERNAME: 'brand',
        KAFKA_SASL_PASSWORD_FILE: file('password', 's3cret\n'),
      };
      expect(problems(env)).toBe('');
      expect(kafkaClientSecurity(loadConfig(Env, env)).sasl).toEqual({
        mechanism,
        username: 'brand',
        password: 's3cret',
      });
    },
  );

  it('scram with the password in the environment, without TLS (SASL_PLAINTEXT)', () => {
    const env = {
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'brand',
      KAFKA_SASL_PASSWORD: 'pw',
    };
    expect(problems(env)).toBe('');
    expect(kafkaClientSecurity(loadConfig(Env, env))).toEqual({
      sasl: { mechanism: 'scram-sha-512', username: 'brand', password: 'pw' },
    });
  });

  it('aws-msk-iam: OAUTHBEARER with a token signed for the region', async () => {
    const env = {
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'aws-msk-iam',
      KAFKA_SASL_AWS_REGION: 'eu-west-1',
    };
    expect(problems(env)).toBe('');
    const regions: string[] = [];
    const security = kafkaClientSecurity(loadConfig(Env, env), (region) => {
      regions.push(region);
      return () => Promise.resolve({ value: `token-for-${region}` });
    });
    expect(security.ssl).toEqual({ rejectUnauthorized: true });
    expect(security.sasl?.mechanism).toBe('oauthbearer');
    const provider = (security.sasl as { oauthBearerProvider: () => Promise<{ value: string }> })
      .oauthBearerProvider;
    await expect(provider()).resolves.toEqual({ value: 'token-for-eu-west-1' });
    expect(regions).toEqual(['eu-west-1']);
  });
});

describe('every wrong combination is refused at start, naming the variable and why', () => {
  const cases: Array<[string, () => Record<string, string>, string[]]> = [
    [
      'a TLS file without KAFKA_SSL',
      () => ({ KAFKA_SSL_CA_FILE: file('ca2.pem', 'x') }),
      ['KAFKA_SSL_CA_FILE: is set but KAFKA_SSL is not true'],
    ],
    [
      'a CA file that cannot be read',
      () => ({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: path.join(dir, 'missing.pem') }),
      [`KAFKA_SSL_CA_FILE: cannot read ${path.join(dir, 'missing.pem')}: no such file`],
    ],
    [
      'a client certificate without its key',
      () => ({ KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: file('c.pem', 'x') }),
      ['KAFKA_SSL_KEY_FILE: is required with the other half of the client certificate'],
    ],
    [
      'a client key without its certificate',
      () => ({ KAFKA_SSL: 'true', KAFKA_SSL_KEY_FILE: file('k.pem', 'x') }),
      ['KAFKA_SSL_CERT_FILE: is required with the other half of the client certificate'],
    ],
    [
      'SASL settings without a mechanism',
      () => ({ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }),
      [
        'KAFKA_SASL_USERNAME: is set but KAFKA_SASL_MECHANISM is not',
        'KAFKA_SASL_PASSWORD: is set but KAFKA_SASL_MECHANISM is not',
      ],
    ],
    [
      'a region without a mechanism',
      () => ({ KAFKA_SASL_AWS_REGION: 'us-east-1' }),
      ['KAFKA_SASL_AWS_REGION: is set but KAFKA_SASL_MECHANISM is not'],
    ],
    ['an unknown mechanism', () => ({ KAFKA_SASL_MECHANISM: 'gssapi' }), ['KAFKA_SASL_MECHANISM:']],
    [
      'scram without a user or password',
      () => ({ KAFKA_SASL_MECHANISM: 'scram-sha-256' }),
      [
        'KAFKA_SASL_USERNAME: is required with KAFKA_SASL_MECHANISM=scram-sha-256',
        'KAFKA_SASL_PASSWORD_FILE: or KAFKA_SASL_PASSWORD is required with scram-sha-256',
      ],
    ],
    [
      'both a password and a password file',
      () => ({
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
        KAFKA_SASL_PASSWORD_FILE: file('pw2', 'p'),
      }),
      ['KAFKA_SASL_PASSWORD: and KAFKA_SASL_PASSWORD_FILE are both set: keep one'],
    ],
    [
      'a password file that cannot be read',
      () => ({
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD_FILE: path.join(dir, 'nope'),
      }),
      [`KAFKA_SASL_PASSWORD_FILE: cannot read ${path.join(dir, 'nope')}: no such file`],
    ],
    [
      'plain without TLS',
      () => ({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }),
      ['KAFKA_SSL: must be true with plain (the password would cross the network in clear)'],
    ],
    [
      'a region with scram',
      () => ({
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
        KAFKA_SASL_AWS_REGION: 'us-east-1',
      }),
      ['KAFKA_SASL_AWS_REGION: applies only to aws-msk-iam, not to scram-sha-512'],
    ],
    [
      'aws-msk-iam without a region or TLS',
      () => ({ KAFKA_SASL_MECHANISM: 'aws-msk-iam' }),
      [
        'KAFKA_SASL_AWS_REGION: is required with KAFKA_SASL_MECHANISM=aws-msk-iam',
        'KAFKA_SSL: must be true with aws-msk-iam',
      ],
    ],
    [
      'aws-msk-iam with a user and password',
      () => ({
        KAFKA_SSL: 'true',
        KAFKA_SASL_MECHANISM: 'aws-msk-iam',
        KAFKA_SASL_AWS_REGION: 'us-east-1',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
      }),
      [
        'KAFKA_SASL_USERNAME: does not apply to aws-msk-iam',
        'KAFKA_SASL_PASSWORD: does not apply to aws-msk-iam',
      ],
    ],
    [
      'a region that is not one',
      () => ({
        KAFKA_SSL: 'true',
        KAFKA_SASL_MECHANISM: 'aws-msk-iam',
        KAFKA_SASL_AWS_REGION: 'Ireland',
      }),
      ['KAFKA_SASL_AWS_REGION: must be an AWS region such as eu-west-1'],
    ],
  ];

  it.each(cases)('%s', (_what, env, expected) => {
    const message = problems(env());
    expect(message).not.toBe('');
    for (const line of expected) expect(message).toContain(line);
  });

  it('never echoes a password it refuses', () => {
    const message = problems({ KAFKA_SASL_PASSWORD: 'hunter2-secret' });
    expect(message).not.toContain('hunter2-secret');
  });
});

it('reads empty values (NAME= in an env file) as unset', () => {
  const env = {
    KAFKA_SSL: '',
    KAFKA_SSL_CA_FILE: '',
    KAFKA_SASL_MECHANISM: '',
    KAFKA_SASL_USERNAME: '',
    KAFKA_SASL_AWS_REGION: '',
  };
  expect(problems(env)).toBe('');
  expect(kafkaClientSecurity(loadConfig(Env, env))).toEqual({});
});

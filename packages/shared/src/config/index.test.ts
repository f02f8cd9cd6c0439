import { z } from 'zod';
import {
  boolEnv,
  ConfigError,
  loadConfig,
  logLevelEnv,
  msEnv,
  portEnv,
  serviceEnvironmentEnv,
} from './index';

describe('boolEnv', () => {
  it.each(['true', 'TRUE', ' True ', '1', 'yes', 'on'])('reads %p as true', (v) => {
    expect(boolEnv.parse(v)).toBe(true);
  });

  it.each(['false', 'FALSE', '0', 'no', 'off', '', '  '])('reads %p as false', (v) => {
    expect(boolEnv.parse(v)).toBe(false);
  });

  it('passes booleans through (schema defaults)', () => {
    expect(boolEnv.parse(true)).toBe(true);
    expect(boolEnv.parse(false)).toBe(false);
  });

  it.each(['maybe', '2', 'truee', 'y'])('refuses %p, quoting it', (v) => {
    const result = boolEnv.safeParse(v);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain(`"${v}"`);
  });
});

describe('small env schemas', () => {
  it('portEnv accepts 0..65535', () => {
    expect(portEnv.parse('0')).toBe(0);
    expect(portEnv.parse('65535')).toBe(65535);
    for (const bad of ['-1', '65536', '80.5', 'http'])
      expect(portEnv.safeParse(bad).success).toBe(false);
  });

  it('msEnv accepts positive integers only', () => {
    expect(msEnv.parse('1500')).toBe(1500);
    for (const bad of ['0', '-5', '1.5', 'soon']) expect(msEnv.safeParse(bad).success).toBe(false);
  });

  it('logLevelEnv and serviceEnvironmentEnv are closed sets', () => {
    expect(logLevelEnv.safeParse('verbose').success).toBe(false);
    expect(serviceEnvironmentEnv.options).toEqual(['live', 'test']);
  });
});

describe('loadConfig', () => {
  const Env = z.object({
    DATABASE_URL: z.string().url(),
    GRPC_PORT: portEnv.default(50051),
    TRACING_ENABLED: boolEnv.default(false),
    SHUTDOWN_GRACE_MS: msEnv.default(10_000),
    INTERNAL_TOKEN: z.string().min(16),
  });

  it('returns typed values with defaults applied', () => {
    expect(
      loadConfig(Env, {
        DATABASE_URL: 'postgres://db/x',
        INTERNAL_TOKEN: 'x'.repeat(16),
        TRACING_ENABLED: 'false',
      }),
    ).toEqual({
      DATABASE_URL: 'postgres://db/x',
      GRPC_PORT: 50051,
      TRACING_ENABLED: false,
      SHUTDOWN_GRACE_MS: 10_000,
      INTERNAL_TOKEN: 'x'.repeat(16),
    });
  });

  it('throws one ConfigError naming every bad variable, one per line', () => {
    let thrown: unknown;
    try {
      loadConfig(Env, { GRPC_PORT: '70000', TRACING_ENABLED: 'perhaps', SHUTDOWN_GRACE_MS: '0' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const message = (thrown as ConfigError).message;
    expect((thrown as ConfigError).name).toBe('ConfigError');
    const lines = message.split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    for (const name of [
      'DATABASE_URL',
      'GRPC_PORT',
      'TRACING_ENABLED',
      'SHUTDOWN_GRACE_MS',
      'INTERNAL_TOKEN',
    ]) {
      expect(lines.filter((l) => l.trimStart().startsWith(`${name}:`))).toHaveLength(1);
    }
  });

  it('never echoes the value of a secret it refuses', () => {
    const secret = 'short-secret';
    expect(() =>
      loadConfig(Env, { DATABASE_URL: 'postgres://db/x', INTERNAL_TOKEN: secret }),
    ).toThrow(/INTERNAL_TOKEN/);
    try {
      loadConfig(Env, { DATABASE_URL: 'postgres://db/x', INTERNAL_TOKEN: secret });
    } catch (err) {
      expect((err as Error).message).not.toContain(secret);
    }
  });
});

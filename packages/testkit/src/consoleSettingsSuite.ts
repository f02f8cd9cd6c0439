import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';

/** The published test console token (PUBLISHED_SECRETS): production must refuse it. */
const PUBLISHED_CONSOLE_TOKEN = 'test-console-token-0123456789abcdef-01234';

/**
 * The console settings every gRPC service shares (docs/console.md "Settings"), run against
 * one service's config loader: off by default; CONSOLE_TOKEN with the assertion key named
 * `keyName` (records' private key, or its public key elsewhere), PEM with real or escaped
 * newlines; a token without the key, a bad key, a short token and the published test token in
 * production refused, naming the variable.
 */
export function runConsoleSettingsTests(
  load: (env: Record<string, string>) => Record<string, unknown>,
  valid: Record<string, string>,
  keyName: 'CONSOLE_ASSERTION_PRIVATE_KEY' | 'CONSOLE_ASSERTION_PUBLIC_KEY',
): void {
  const pair = generateKeyPairSync('ed25519');
  const pem = (
    keyName === 'CONSOLE_ASSERTION_PRIVATE_KEY'
      ? pair.privateKey.export({ type: 'pkcs8', format: 'pem' })
      : pair.publicKey.export({ type: 'spki', format: 'pem' })
  ).toString();
  const CONSOLE_TOKEN = 'a-console-token-of-at-least-32-characters';
  const throws = (env: Record<string, string>, name: string): void =>
    expect(() => load({ ...valid, ...env })).toThrow(new RegExp(name));

  describe('the console settings', () => {
    it('leave the console off by default', () => {
      const config = load(valid);
      expect(config.CONSOLE_TOKEN).toBeUndefined();
      expect(config[keyName]).toBeUndefined();
    });

    it('read the token and the PEM key, also with its newlines written as \\n', () => {
      for (const value of [pem, pem.replaceAll('\n', '\\n')]) {
        const config = load({ ...valid, CONSOLE_TOKEN, [keyName]: value });
        expect(config.CONSOLE_TOKEN).toBe(CONSOLE_TOKEN);
        expect((config[keyName] as KeyObject).asymmetricKeyType).toBe('ed25519');
      }
    });

    it('refuse a console token without the key, a bad key, and a short token', () => {
      throws({ CONSOLE_TOKEN }, keyName);
      throws({ CONSOLE_TOKEN, [keyName]: 'not a key' }, keyName);
      throws({ CONSOLE_TOKEN: 'short', [keyName]: pem }, 'CONSOLE_TOKEN');
    });

    it('refuse the published test console token in production', () => {
      throws(
        { NODE_ENV: 'production', CONSOLE_TOKEN: PUBLISHED_CONSOLE_TOKEN, [keyName]: pem },
        'CONSOLE_TOKEN',
      );
    });
  });
}

import { loadReceiverConfig } from './config';
import { ConfigError } from './envParsing';

const files: Record<string, string> = { '/tls/cert.pem': 'CERT', '/tls/key.pem': 'KEY' };
const readFile = (path: string): Buffer => {
  const content = files[path];
  if (content === undefined) throw new Error('ENOENT');
  return Buffer.from(content);
};

describe('loadReceiverConfig', () => {
  it('reads every setting', () => {
    const config = loadReceiverConfig(
      {
        RECEIVER_PORT: '9443',
        RECEIVER_SECRETS: 'whsec_new, whsec_old',
        RECEIVER_EVENTS: 'payout.paid,campaign.settled',
        RECEIVER_TLS_CERT: '/tls/cert.pem',
        RECEIVER_TLS_KEY: '/tls/key.pem',
      },
      readFile,
    );
    expect(config).toEqual({
      port: 9443,
      host: '127.0.0.1',
      secrets: ['whsec_new', 'whsec_old'],
      acceptedTypes: ['payout.paid', 'campaign.settled'],
      tls: { cert: Buffer.from('CERT'), key: Buffer.from('KEY') },
    });
  });

  it('defaults to port 8443, all four events and plain HTTP', () => {
    const config = loadReceiverConfig({ RECEIVER_SECRETS: 'whsec_x' }, readFile);
    expect(config.port).toBe(8443);
    expect(config.acceptedTypes).toHaveLength(4);
    expect(config.tls).toBeUndefined();
  });

  it.each([
    [{}, /RECEIVER_SECRETS is required/],
    [{ RECEIVER_SECRETS: ' , ' }, /RECEIVER_SECRETS is required/],
    [{ RECEIVER_SECRETS: 'x', RECEIVER_PORT: '70000' }, /RECEIVER_PORT/],
    [
      { RECEIVER_SECRETS: 'x', RECEIVER_EVENTS: 'payout.failed' },
      /unknown event type payout.failed/,
    ],
    [{ RECEIVER_SECRETS: 'x', RECEIVER_TLS_CERT: '/tls/cert.pem' }, /set both or neither/],
    [
      { RECEIVER_SECRETS: 'x', RECEIVER_TLS_CERT: '/no', RECEIVER_TLS_KEY: '/no' },
      /cannot read \/no/,
    ],
  ])('refuses %j with a readable ConfigError', (env, message) => {
    expect(() => loadReceiverConfig(env, readFile)).toThrow(ConfigError);
    expect(() => loadReceiverConfig(env, readFile)).toThrow(message);
  });
});

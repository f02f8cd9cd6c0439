import { ConfigError } from '@brand/example-receiver';
import { loadRelayConfig } from './config';

const BASE = {
  RELAY_SECRETS: 'whsec_a',
  RELAY_TARGET_URL: 'https://hooks.chat.example/services/T0/B0/token',
  DASHBOARD_BASE_URL: 'https://app.example.com',
};
const noFiles = (): Buffer => {
  throw new Error('ENOENT');
};

describe('loadRelayConfig', () => {
  it('reads the settings with their defaults', () => {
    expect(loadRelayConfig(BASE, noFiles)).toEqual({
      port: 8444,
      host: '127.0.0.1',
      secrets: ['whsec_a'],
      acceptedTypes: [
        'submission.approved',
        'submission.rejected',
        'payout.paid',
        'campaign.settled',
      ],
      targetUrl: BASE.RELAY_TARGET_URL,
      dashboardBaseUrl: 'https://app.example.com/',
      timeoutMs: 10_000,
      tls: undefined,
    });
  });

  it('admits plain http to loopback only, for local tries', () => {
    const local = { ...BASE, RELAY_TARGET_URL: 'http://127.0.0.1:9000/chat' };
    expect(loadRelayConfig(local, noFiles).targetUrl).toBe('http://127.0.0.1:9000/chat');
  });

  it.each([
    [{ RELAY_TARGET_URL: undefined }, /RELAY_TARGET_URL is required/],
    [
      { RELAY_TARGET_URL: 'http://hooks.chat.example/services/T0/B0/token' },
      /must be an https URL/,
    ],
    [{ DASHBOARD_BASE_URL: 'app.example.com' }, /DASHBOARD_BASE_URL is required/],
    [{ RELAY_SECRETS: '' }, /RELAY_SECRETS is required/],
    [{ RELAY_TIMEOUT_MS: '30000' }, /RELAY_TIMEOUT_MS/],
    [{ RELAY_EVENTS: 'payment.failed' }, /unknown event type/],
  ])('refuses %j with a ConfigError', (change, message) => {
    const env = { ...BASE, ...change };
    expect(() => loadRelayConfig(env, noFiles)).toThrow(ConfigError);
    expect(() => loadRelayConfig(env, noFiles)).toThrow(message);
  });

  it('never echoes the chat URL in an error (it is a credential)', () => {
    const env = { ...BASE, RELAY_TARGET_URL: 'http://hooks.chat.example/services/SECRET' };
    expect(() => loadRelayConfig(env, noFiles)).toThrow(/^(?!.*SECRET)/);
  });
});

/**
 * Team-chat incoming-webhook endpoints. They expect their own message format, not our
 * signed event JSON, and they would publish whatever we send to a channel (docs/contract.md#channel-relay):
 * such URLs are refused, pointing to a relay that verifies and converts (examples/relay).
 */
const CHAT_RULES: Array<{ host: RegExp; path?: RegExp; service: string }> = [
  { host: /^hooks\.slack(-gov)?\.com$/, service: 'Slack' },
  {
    host: /^(ptb\.|canary\.)?discord(app)?\.com$/,
    path: /^\/api(\/v\d+)?\/webhooks/,
    service: 'Discord',
  },
  { host: /^outlook\.office(365)?\.com$/, path: /^\/webhook/i, service: 'Microsoft Teams' },
  { host: /(^|\.)webhook\.office\.com$/, service: 'Microsoft Teams' },
  { host: /^chat\.googleapis\.com$/, service: 'Google Chat' },
  { host: /^open\.(larksuite\.com|feishu\.cn)$/, path: /^\/open-apis\/bot/, service: 'Lark' },
  { host: /^oapi\.dingtalk\.com$/, path: /^\/robot/, service: 'DingTalk' },
  { host: /^qyapi\.weixin\.qq\.com$/, path: /^\/cgi-bin\/webhook/, service: 'WeCom' },
];

export const RELAY_POINTER =
  'register a relay that verifies our signature and posts a short message instead (examples/relay, docs/contract.md#channel-relay)';

/** The chat service a URL is an incoming webhook of, or undefined. */
export function chatServiceOf(url: URL): string | undefined {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return CHAT_RULES.find((r) => r.host.test(host) && (!r.path || r.path.test(url.pathname)))
    ?.service;
}

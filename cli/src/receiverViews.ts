import type { Receiver, SecretRotation } from '@brand/proto/webhooks/v1';
import { formatFields, formatTable, shortTime, yesNo } from './output';
import { eventName, orNull, statusOrNull, statusWord } from './viewWords';

/** A pending rotation as JSON (never a secret): its switch time and its latest Test. */
const rotationJson = (r: SecretRotation) => ({
  created_at: r.created_at,
  created_by: r.created_by,
  switch_at: orNull(r.switch_at),
  test_delivery_id: orNull(r.test_delivery_id),
  test_status: r.test_delivery_id === '' ? null : statusWord(r.test_status),
  test_last_status: statusOrNull(r.test_last_status),
  test_last_error: orNull(r.test_last_error),
});

/** A receiver as JSON: never the secret (the proto message has no field for it). */
export const receiverJson = (r: Receiver) => ({
  id: r.id,
  brand_id: r.brand_id,
  url: r.url,
  label: r.label,
  events: r.events.map(eventName),
  enabled: r.enabled,
  disabled_reason: orNull(r.disabled_reason),
  last_status: statusOrNull(r.last_status),
  last_delivery_at: orNull(r.last_delivery_at),
  failure_count: r.failure_count,
  failing_since: orNull(r.failing_since),
  last_error: orNull(r.last_error),
  disabled_by_service: r.disabled_by_service,
  disabled_at: orNull(r.disabled_at),
  rotation: r.rotation ? rotationJson(r.rotation) : null,
  created_at: r.created_at,
  created_by: r.created_by,
});

/** "pending since 14:00Z, switch at 15:00Z; test: succeeded (200)". */
function rotationText(r: SecretRotation): string {
  const when = r.switch_at === '' ? 'switch not scheduled' : `switch at ${shortTime(r.switch_at)}`;
  const test =
    r.test_delivery_id === ''
      ? 'not tested with the new secret yet'
      : `test with the new secret ${statusWord(r.test_status)}` +
        (r.test_last_error
          ? ` (${r.test_last_error})`
          : r.test_last_status
            ? ` (${r.test_last_status})`
            : '');
  return `new secret since ${shortTime(r.created_at)}; ${when}; ${test}`;
}

/** "yes", "no (by the service: gone ...)" or "no (disabled by an owner)". */
function enabledText(r: Receiver): string {
  if (r.enabled) return 'yes';
  const reason = r.disabled_reason || 'disabled';
  const by = r.disabled_by_service ? 'by the service: ' : '';
  return `no (${by}${reason}${r.disabled_at ? `, ${shortTime(r.disabled_at)}` : ''})`;
}

const lastText = (status: number, at: string): string =>
  at === '' ? 'never' : `${status === 0 ? 'no response' : status} at ${shortTime(at)}`;

export function receiverFields(r: Receiver): string {
  const fields: Array<[string, string]> = [
    ['id', r.id],
    ['brand', r.brand_id],
    ['url', r.url],
    ['label', r.label],
    ['events', r.events.map(eventName).join(', ')],
    ['enabled', enabledText(r)],
    ['last delivery', lastText(r.last_status, r.last_delivery_at)],
    [
      'failures',
      r.failing_since
        ? `${r.failure_count} in a row, failing since ${shortTime(r.failing_since)}: ${r.last_error}`
        : String(r.failure_count),
    ],
    ['secret rotation', r.rotation ? rotationText(r.rotation) : 'none'],
    ['created', `${shortTime(r.created_at)} by ${r.created_by}`],
  ];
  return formatFields(fields);
}

export function receiverTable(receivers: Receiver[]): string {
  return formatTable(
    [
      'ID',
      'LABEL',
      'URL',
      'EVENTS',
      'ENABLED',
      'LAST STATUS',
      'LAST DELIVERY',
      'FAILURES',
      'FAILING SINCE',
    ],
    receivers.map((r) => [
      r.id,
      r.label,
      r.url,
      r.events.map(eventName).join(','),
      yesNo(r.enabled),
      r.last_status === 0 ? '-' : String(r.last_status),
      shortTime(r.last_delivery_at),
      String(r.failure_count),
      r.failing_since ? shortTime(r.failing_since) : '-',
    ]),
  );
}

/** The one and only display of a signing secret, with the same warning as key secrets. */
export function signingSecretBlock(secret: string, title = 'Signing secret'): string {
  return [
    `${title} (shown once):`,
    '',
    `    ${secret}`,
    '',
    'Copy it now: it will not be shown again. Keep it on the receiving server (an environment\n' +
      'variable or a secret store), never in browser code, repositories, screenshots or support\n' +
      'messages. Verify every delivery with it: see examples/receiver.',
  ].join('\n');
}

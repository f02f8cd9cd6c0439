import { secretFromFile } from '../settings';
import { Option, type Command } from 'commander';
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import type { AuditBatch, AuditStream } from '@brand/proto/webhooks/v1/audit';
import { ACTOR_FLAGS, ACTOR_HELP } from '../args';
import { formatFields, formatTable, indent, shortTime } from '../output';
import { checkedActor, requireOwnerActor, streamBrand } from '../ownerActor';
import { signingSecretBlock } from '../receiverViews';
import { defineCommand, defineGroup, onWebhooks } from '../run';

const KINDS = ['https', 'splunk_hec', 'datadog'] as const;

/**
 * A destination's token or API key from a file ("-": standard input), never from the command
 * line, where shell histories and process lists would keep it.
 */
/** A stream's token from --token-file ('' without one). */
/** --actor of a command on the stream `streamId`, checked an owner of its brand (checkedActor). */
const streamActor = (
  backend: Parameters<typeof checkedActor>[0],
  settings: Parameters<typeof checkedActor>[1],
  streamId: string,
  actor: string | undefined,
  doing: string,
): Promise<string> => checkedActor(backend, settings, actor, streamBrand(backend, streamId), doing);

const readToken = (path: string | undefined): string => secretFromFile(path) ?? '';

const streamJson = (s: AuditStream) => ({
  ...s,
  waiting: s.head - s.delivered_through,
});

function streamFields(s: AuditStream): string {
  const fields: Array<[string, string]> = [
    ['id', s.id],
    ['brand', s.brand_id],
    ['name', s.label],
    ['kind', s.kind],
    ['url', s.url],
  ];
  if (s.datadog_site) fields.push(['datadog site', s.datadog_site]);
  if (s.splunk_index) fields.push(['splunk index', s.splunk_index]);
  fields.push(
    ['enabled', s.enabled ? 'yes' : `no (${s.disabled_reason || 'disabled'})`],
    [
      'sent through',
      `position ${s.delivered_through} of ${s.head} (${s.head - s.delivered_through} waiting)`,
    ],
    ['last delivery', `${shortTime(s.last_delivery_at)} (HTTP ${s.last_status || '-'})`],
  );
  if (s.failure_count > 0)
    fields.push([
      'failing',
      `since ${shortTime(s.failing_since)}, ${s.failure_count} attempts: ${s.last_error}`,
    ]);
  if (s.set_aside > 0)
    fields.push([
      'set aside',
      `${s.set_aside} refused as too large alone (send again: brandctl stream resend-set-aside ${s.id})`,
    ]);
  fields.push(['created', `${shortTime(s.created_at)} by ${s.created_by}`]);
  return formatFields(fields);
}

const STATUS: Record<number, string> = {
  [DeliveryStatus.DELIVERY_STATUS_SUCCEEDED]: 'delivered',
  [DeliveryStatus.DELIVERY_STATUS_FAILED]: 'failed',
  [DeliveryStatus.DELIVERY_STATUS_PENDING]: 'waiting',
};

const batchRow = (b: AuditBatch): string[] => [
  b.id,
  shortTime(b.created_at),
  b.test ? 'test' : `${b.first_position}-${b.last_position}`,
  STATUS[b.status] ?? '?',
  String(b.attempt_count),
  b.last_error || (b.last_status ? `HTTP ${b.last_status}` : '-'),
];

/** brandctl stream add | list | show | update | test | resend-set-aside | remove (issue 63). */
export function registerStreamCommands(program: Command): void {
  const stream = defineGroup(
    program,
    'stream',
    "Manage a brand's audit streams: its activity and refused requests sent to a SIEM (HTTPS JSON lines, Splunk HEC, Datadog).",
    [
      'brandctl stream add --brand br_123 --kind splunk_hec --label Splunk --url https://splunk.acme.example:8088/services/collector/event --token-file hec.token --actor ana@acme.test',
      'brandctl stream list --brand br_123',
      'brandctl stream show aus_123',
      'brandctl stream test aus_123',
    ],
  );

  defineCommand(
    stream,
    'add',
    "Connect an audit stream; an HTTPS stream's signing secret is printed once.",
    [
      'brandctl stream add --brand br_123 --kind https --label SIEM --url https://siem.acme.example/audit --actor ana@acme.test',
      'brandctl stream add --brand br_123 --kind datadog --label Datadog --datadog-site datadoghq.eu --token-file dd.key --actor ana@acme.test',
    ],
  )
    .requiredOption('--brand <brandId>', 'the brand whose trail it gets (br_...)')
    .addOption(new Option('--kind <kind>', 'where it goes').choices(KINDS).makeOptionMandatory())
    .requiredOption('--label <text>', 'a name you will recognise')
    .option('--url <https-url>', 'the collector or HEC URL (Datadog: its site intake by default)')
    .option('--token-file <path>', 'a file holding the HEC token or Datadog API key ("-": stdin)')
    .option('--datadog-site <site>', 'Datadog: e.g. datadoghq.com, datadoghq.eu')
    .option('--splunk-index <index>', "Splunk: the index (the token's default otherwise)")
    .requiredOption('--actor <email>', 'the brand owner connecting it (recorded for audit)')
    .action(
      (
        opts: {
          brand: string;
          kind: (typeof KINDS)[number];
          label: string;
          url?: string;
          tokenFile?: string;
          datadogSite?: string;
          splunkIndex?: string;
          actor: string;
        },
        cmd: Command,
      ) =>
        onWebhooks(cmd, async ({ backend, settings, json, notice }) => {
          await requireOwnerActor(
            backend,
            settings,
            opts.brand,
            opts.actor,
            'connect audit streams',
          );
          const res = await backend.auditStreams('addAuditStream', {
            brand_id: opts.brand,
            kind: opts.kind,
            label: opts.label,
            url: opts.url ?? '',
            token: readToken(opts.tokenFile),
            datadog_site: opts.datadogSite ?? '',
            splunk_index: opts.splunkIndex ?? '',
            actor_email: opts.actor,
          });
          const s = res.stream!;
          if (json && res.signing_secret)
            notice('warning: the signing secret is shown once; keep it with the collector.');
          return {
            json: { stream: streamJson(s), signing_secret: res.signing_secret },
            human:
              `Audit stream connected: it is sent every entry from now on.\n\n${indent(streamFields(s))}` +
              (res.signing_secret ? `\n\n${indent(signingSecretBlock(res.signing_secret))}` : '') +
              `\n\nSend a test entry: brandctl stream test ${s.id}`,
          };
        }),
    );

  defineCommand(stream, 'list', "List a brand's audit streams (never their tokens).", [
    'brandctl stream list --brand br_123',
  ])
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .action((opts: { brand: string }, cmd: Command) =>
      onWebhooks(cmd, async ({ backend }) => {
        const { streams, limit } = await backend.auditStreams('listAuditStreams', {
          brand_id: opts.brand,
        });
        return {
          json: { streams: streams.map(streamJson), limit },
          human:
            streams.length === 0
              ? `No audit streams for ${opts.brand} (at most ${limit}). Connect one: brandctl stream add --help`
              : formatTable(
                  ['ID', 'NAME', 'KIND', 'ENABLED', 'SENT', 'HEAD', 'FAILURES', 'LAST DELIVERY'],
                  streams.map((s) => [
                    s.id,
                    s.label,
                    s.kind,
                    s.enabled ? 'yes' : 'no',
                    String(s.delivered_through),
                    String(s.head),
                    String(s.failure_count),
                    shortTime(s.last_delivery_at),
                  ]),
                ),
        };
      }),
    );

  defineCommand(stream, 'show <streamId>', 'Show a stream, its health and its last deliveries.', [
    'brandctl stream show aus_123',
  ])
    .option('--deliveries <n>', 'how many of the last deliveries (at most 100)', '10')
    .action((streamId: string, opts: { deliveries: string }, cmd: Command) =>
      onWebhooks(cmd, async ({ backend }) => {
        const res = await backend.auditStreams('getAuditStream', {
          stream_id: streamId,
          deliveries: Number(opts.deliveries) || 10,
        });
        const s = res.stream!;
        const health = res.health
          .map((w) => `  ${w.window}: ${w.attempts} attempts, ${w.succeeded} succeeded`)
          .join('\n');
        return {
          json: { stream: streamJson(s), health: res.health, deliveries: res.deliveries },
          human:
            `${streamFields(s)}\n\nHealth (attempts of real entries, tests left out):\n${health}\n\n` +
            (res.deliveries.length === 0
              ? 'No deliveries yet.'
              : formatTable(
                  ['DELIVERY', 'CREATED', 'POSITIONS', 'STATE', 'ATTEMPTS', 'LAST'],
                  res.deliveries.map(batchRow),
                )),
        };
      }),
    );

  defineCommand(
    stream,
    'update <streamId>',
    'Change a stream: name, URL, token, site, index; enable or disable it.',
    [
      'brandctl stream update aus_123 --token-file new-hec.token',
      'brandctl stream update aus_123 --disable',
    ],
  )
    .option('--label <text>', 'a new name')
    .option('--url <https-url>', 'a new destination (checked as at connection)')
    .option('--token-file <path>', 'a new HEC token or Datadog API key from this file ("-": stdin)')
    .option('--datadog-site <site>', 'a new Datadog site')
    .option('--splunk-index <index>', 'a new Splunk index')
    .addOption(
      new Option('--enable', 'enable it: it goes on where it stopped').conflicts('disable'),
    )
    .option('--disable', 'disable it: its entries wait')
    .option(ACTOR_FLAGS, ACTOR_HELP)
    .action(
      (
        streamId: string,
        opts: {
          label?: string;
          url?: string;
          tokenFile?: string;
          datadogSite?: string;
          splunkIndex?: string;
          enable?: boolean;
          disable?: boolean;
          actor?: string;
        },
        cmd: Command,
      ) =>
        onWebhooks(cmd, async ({ backend, settings }) => {
          const actor = await streamActor(
            backend,
            settings,
            streamId,
            opts.actor,
            'change audit streams',
          );
          const res = await backend.auditStreams('updateAuditStream', {
            stream_id: streamId,
            label: opts.label,
            url: opts.url,
            token: opts.tokenFile === undefined ? undefined : readToken(opts.tokenFile),
            datadog_site: opts.datadogSite,
            splunk_index: opts.splunkIndex,
            enabled: opts.enable ? true : opts.disable ? false : undefined,
            actor_email: actor,
          });
          return {
            json: { stream: streamJson(res.stream!) },
            human: `Audit stream updated.\n\n${indent(streamFields(res.stream!))}`,
          };
        }),
    );

  defineCommand(
    stream,
    'test <streamId>',
    'Queue one test entry (test: true, position 0) to a stream.',
    ['brandctl stream test aus_123'],
  )
    .option(ACTOR_FLAGS, ACTOR_HELP)
    .action((streamId: string, opts: { actor?: string }, cmd: Command) =>
      onWebhooks(cmd, async ({ backend, settings }) => {
        const actor = await streamActor(
          backend,
          settings,
          streamId,
          opts.actor,
          'test audit streams',
        );
        const res = await backend.auditStreams('testAuditStream', {
          stream_id: streamId,
          actor_email: actor,
        });
        return {
          json: res,
          human: `Test entry queued (${res.delivery_id}); queued is not delivered. See: brandctl stream show ${streamId}`,
        };
      }),
    );

  defineCommand(
    stream,
    'resend-set-aside <streamId>',
    'Send again the entries a stream set aside (each refused as too large alone on a whole round), once the destination takes them: oldest first, at most 100 a run; they arrive out of order.',
    ['brandctl stream resend-set-aside aus_123 --actor ana@acme.test'],
  )
    .option(ACTOR_FLAGS, ACTOR_HELP)
    .action((streamId: string, opts: { actor?: string }, cmd: Command) =>
      onWebhooks(cmd, async ({ backend, settings }) => {
        const actor = await streamActor(
          backend,
          settings,
          streamId,
          opts.actor,
          'send set-aside entries again',
        );
        const res = await backend.auditStreams('resendSetAside', {
          stream_id: streamId,
          actor_email: actor,
        });
        const left =
          res.remaining > 0 ? ` ${res.remaining} remain: run it again to send more.` : '';
        return {
          json: {
            stream: streamJson(res.stream!),
            requeued: res.requeued,
            remaining: res.remaining,
          },
          human:
            `${res.requeued} set-aside ${res.requeued === 1 ? 'entry' : 'entries'} queued to be sent again; queued is not delivered. ` +
            `They arrive out of order, after the entries sent since, each with its position.${left}
` +
            `See the outcome with: brandctl stream show ${streamId}`,
        };
      }),
    );

  defineCommand(stream, 'remove <streamId>', 'Remove a stream; the audit trail itself stays.', [
    'brandctl stream remove aus_123 --actor ana@acme.test',
  ])
    .option(ACTOR_FLAGS, ACTOR_HELP)
    .action((streamId: string, opts: { actor?: string }, cmd: Command) =>
      onWebhooks(cmd, async ({ backend, settings }) => {
        const actor = await streamActor(
          backend,
          settings,
          streamId,
          opts.actor,
          'remove audit streams',
        );
        const res = await backend.auditStreams('removeAuditStream', {
          stream_id: streamId,
          actor_email: actor,
        });
        return {
          json: { stream: streamJson(res.stream!) },
          human: `Audit stream ${streamId} removed: it is sent nothing more.`,
        };
      }),
    );
}

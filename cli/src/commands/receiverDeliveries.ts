import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Delivery } from '@brand/proto/webhooks/v1';
import { ACTOR_FLAGS, ACTOR_HELP, parseLimit, parseSince } from '../args';
import {
  deliveryLogRequest,
  parseDeliveryState,
  parseEventType,
  type DeliveryLogOptions,
} from '../deliveryLogArgs';
import { deliveryDetail, deliveryFields, deliveryJson, deliveryTable } from '../deliveryViews';
import { groupedNumber, indent, shortTime } from '../output';
import { defineCommand, onWebhooks } from '../run';
import { checkedActor, receiverBrand } from '../ownerActor';
import { orNull } from '../viewWords';

/** The most deliveries --all gathers; narrow with --since/--until for more. */
const ALL_AT_MOST = 10_000;

/** brandctl receiver deliveries | delivery | resend | retry | recover. */
export function registerDeliveryCommands(receiver: Command): void {
  defineCommand(
    receiver,
    'deliveries [receiverId]',
    "A receiver's (or a whole brand's) delivery log, newest first, with attempts: filter by state, event type, time, event id or record id, and page on with --cursor (or --all).",
    [
      'brandctl receiver deliveries rcv_123',
      'brandctl receiver deliveries rcv_123 --status failed --since 6h',
      'brandctl receiver deliveries --brand br_123 --record-id sub_123 --json',
      'brandctl receiver deliveries rcv_123 --status waiting --all --json',
    ],
  )
    .option(
      '--brand <brandId>',
      "a brand's deliveries across its receivers, instead of one receiver",
    )
    .option('--status <state>', 'only delivered, waiting or failed ones', parseDeliveryState)
    .option('--event <type>', 'only this event type, e.g. subscription.updated', parseEventType)
    .option('--since <time>', 'created at or after: RFC 3339, or 90m, 6h, 3d back from now', (v) =>
      parseSince(v),
    )
    .option('--until <time>', 'created before: RFC 3339, or a duration back from now', (v) =>
      parseSince(v),
    )
    .option('--event-id <evt>', 'only the deliveries of this event (evt_...)')
    .option('--record-id <id>', 'only deliveries of events about this record (sub_..., po_...)')
    .option('--limit <n>', 'how many per page (1-200, default 50)', parseLimit)
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed')
    .option('--all', `every page, up to ${groupedNumber(ALL_AT_MOST)} deliveries`)
    .action(
      (
        receiverId: string | undefined,
        opts: DeliveryLogOptions & { all?: boolean },
        cmd: Command,
      ) =>
        onWebhooks(cmd, async ({ backend }) => {
          const request = deliveryLogRequest(receiverId, opts);
          const deliveries: Delivery[] = [];
          let nextCursor = request.cursor;
          let retentionDays = 0;
          do {
            const page = await backend.webhooks('listDeliveries', {
              ...request,
              limit: opts.all ? (opts.limit ?? 200) : request.limit,
              cursor: nextCursor,
            });
            deliveries.push(...page.deliveries);
            nextCursor = page.next_cursor;
            retentionDays = page.history_retention_days;
          } while (opts.all && nextCursor !== '' && deliveries.length < ALL_AT_MOST);
          const more =
            nextCursor === ''
              ? ''
              : `\nMore: run it again with --cursor ${nextCursor}${opts.all ? ` (--all stops at ${groupedNumber(ALL_AT_MOST)})` : ''}`;
          return {
            json: {
              deliveries: deliveries.map(deliveryJson),
              next_cursor: orNull(nextCursor),
              history_retention_days: retentionDays,
            },
            human:
              (deliveries.length === 0
                ? nextCursor === ''
                  ? 'No deliveries match.'
                  : 'None in this stretch of the log.'
                : deliveryTable(deliveries)) +
              more +
              (nextCursor === '' && retentionDays > 0
                ? `\n(Deliveries are kept ${retentionDays} days after their event: the log reaches no further back.)`
                : ''),
          };
        }),
    );

  defineCommand(
    receiver,
    'delivery <deliveryId>',
    'Show one delivery in full: each attempt with what was sent and what the receiver answered, and the event JSON.',
    ['brandctl receiver delivery dlv_123', 'brandctl receiver delivery dlv_123 --json'],
  ).action((deliveryId: string, _opts: unknown, cmd: Command) =>
    onWebhooks(cmd, async ({ backend }) => {
      const { delivery } = await backend.webhooks('getDelivery', { delivery_id: deliveryId });
      if (!delivery) throw new Error('the webhooks service returned no delivery');
      return { json: { delivery: deliveryJson(delivery) }, human: deliveryDetail(delivery) };
    }),
  );

  defineCommand(
    receiver,
    'resend <deliveryId>',
    'Queue a finished delivery again (same event id).',
    ['brandctl receiver resend dlv_123'],
  ).action((deliveryId: string, _opts: unknown, cmd: Command) =>
    onWebhooks(cmd, async ({ backend }) => {
      const res = await backend.webhooks('resendDelivery', { delivery_id: deliveryId });
      if (!res.delivery) throw new Error('the webhooks service returned no delivery');
      return {
        json: { delivery: deliveryJson(res.delivery), queued: true, delivered: false },
        human: `Delivery queued again (not yet delivered).\n\n${indent(deliveryFields(res.delivery))}`,
      };
    }),
  );

  defineCommand(
    receiver,
    'retry <deliveryId>',
    'Retry now: a delivery waiting for its next attempt gets it at once.',
    ['brandctl receiver retry dlv_123'],
  ).action((deliveryId: string, _opts: unknown, cmd: Command) =>
    onWebhooks(cmd, async ({ backend }) => {
      const res = await backend.webhooks('retryDelivery', { delivery_id: deliveryId });
      if (!res.delivery) throw new Error('the webhooks service returned no delivery');
      return {
        json: { delivery: deliveryJson(res.delivery), queued: true, delivered: false },
        human: `Next attempt due now (not yet delivered).\n\n${indent(deliveryFields(res.delivery))}`,
      };
    }),
  );

  defineCommand(
    receiver,
    'recover <receiverId>',
    'Send everything of a receiver since a time that was not delivered, failed or waiting for a retry (at most 14 days back, 10,000 per run, oldest first); shows a preview, and changes nothing without --yes.',
    [
      'brandctl receiver recover rcv_123 --since 6h',
      'brandctl receiver recover rcv_123 --since 2026-11-20T14:00:00Z --yes --actor ana@acme.test',
    ],
  )
    .requiredOption(
      '--since <time>',
      'RFC 3339 time, or a duration back from now: 90m, 6h, 3d',
      (v) => parseSince(v),
    )
    .option('--yes', 'send them now (without it, only the preview is shown)')
    .option(ACTOR_FLAGS, ACTOR_HELP)
    .option(
      '--request-id <uuid>',
      'make a retry of this command answer the first run (default: a new UUID)',
    )
    .action(
      (
        receiverId: string,
        opts: { since: string; yes?: boolean; requestId?: string; actor?: string },
        cmd: Command,
      ) =>
        onWebhooks(cmd, async ({ backend, settings }) => {
          // checked before the preview too: a --yes run would refuse it after the preview agreed
          const actor = await checkedActor(
            backend,
            settings,
            opts.actor,
            receiverBrand(backend, receiverId),
            'recover deliveries',
          );
          const preview = await backend.webhooks('previewRecovery', {
            receiver_id: receiverId,
            since: opts.since,
          });
          const undelivered = preview.failed + preview.waiting;
          const counted =
            `${undelivered} not delivered since ${shortTime(opts.since)} (${preview.failed} failed, ${preview.waiting} waiting for a retry)` +
            (undelivered > preview.would_requeue
              ? `; one run sends the oldest ${preview.would_requeue} (at most ${preview.max_per_request})`
              : '');
          if (!opts.yes) {
            return {
              json: { preview: { ...preview, since: opts.since }, recovered: null },
              human:
                `${counted}.\nNothing changed. Send them now with:\n` +
                `  brandctl receiver recover ${receiverId} --since ${opts.since} --yes`,
            };
          }
          const res = await backend.webhooks('recoverDeliveries', {
            receiver_id: receiverId,
            since: opts.since,
            request_id: opts.requestId ?? randomUUID(),
            actor_email: actor,
          });
          const left =
            res.remaining > 0 ? ` ${res.remaining} remain: run it again to send more.` : '';
          return {
            json: { preview: { ...preview, since: opts.since }, recovered: res },
            human:
              `${counted}.\n${res.replayed ? 'Already done by this request id: ' : ''}` +
              `${res.requeued} due now, oldest first (${res.requeued_failed} failed re-queued, ${res.made_due} waiting made due), as attempts of the same events.${left}`,
          };
        }),
    );
}

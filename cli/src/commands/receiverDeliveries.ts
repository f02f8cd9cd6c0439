import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { parseLimit, parseSince } from '../args';
import { deliveryDetail, deliveryFields, deliveryJson, deliveryTable } from '../deliveryViews';
import { indent, shortTime } from '../output';
import { defineCommand, onWebhooks } from '../run';

/** brandctl receiver deliveries | delivery | resend | retry | recover. */
export function registerDeliveryCommands(receiver: Command): void {
  defineCommand(
    receiver,
    'deliveries [receiverId]',
    "List a receiver's (or a whole brand's) deliveries, newest first, with their attempts.",
    ['brandctl receiver deliveries rcv_123', 'brandctl receiver deliveries --brand br_123 --json'],
  )
    .option(
      '--brand <brandId>',
      "a brand's deliveries across its receivers, instead of one receiver",
    )
    .option('--limit <n>', 'how many (1-200, default 50)', parseLimit)
    .action(
      (receiverId: string | undefined, opts: { brand?: string; limit?: number }, cmd: Command) =>
        onWebhooks(cmd, async ({ backend }) => {
          const { deliveries } = await backend.webhooks('listDeliveries', {
            receiver_id: receiverId ?? '',
            brand_id: opts.brand ?? '',
            limit: opts.limit ?? 0,
          });
          return {
            json: { deliveries: deliveries.map(deliveryJson) },
            human: deliveries.length === 0 ? 'No deliveries yet.' : deliveryTable(deliveries),
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
    'Re-queue the failed deliveries of a receiver since a time (at most 14 days back, 10,000 per run, oldest first); shows a preview, and changes nothing without --yes.',
    [
      'brandctl receiver recover rcv_123 --since 6h',
      'brandctl receiver recover rcv_123 --since 2026-11-20T14:00:00Z --yes',
    ],
  )
    .requiredOption(
      '--since <time>',
      'RFC 3339 time, or a duration back from now: 90m, 6h, 3d',
      (v) => parseSince(v),
    )
    .option('--yes', 're-queue them (without it, only the preview is shown)')
    .option(
      '--request-id <uuid>',
      'make a retry of this command answer the first run (default: a new UUID)',
    )
    .action(
      (
        receiverId: string,
        opts: { since: string; yes?: boolean; requestId?: string },
        cmd: Command,
      ) =>
        onWebhooks(cmd, async ({ backend }) => {
          const preview = await backend.webhooks('previewRecovery', {
            receiver_id: receiverId,
            since: opts.since,
          });
          const counted =
            `${preview.failed} failed deliveries since ${shortTime(opts.since)}` +
            (preview.failed > preview.would_requeue
              ? `; one run re-queues the oldest ${preview.would_requeue} (at most ${preview.max_per_request})`
              : '');
          if (!opts.yes) {
            return {
              json: { preview: { ...preview, since: opts.since }, recovered: null },
              human:
                `${counted}.\nNothing changed. Re-queue them with:\n` +
                `  brandctl receiver recover ${receiverId} --since ${opts.since} --yes`,
            };
          }
          const res = await backend.webhooks('recoverDeliveries', {
            receiver_id: receiverId,
            since: opts.since,
            request_id: opts.requestId ?? randomUUID(),
          });
          const left =
            res.remaining > 0 ? ` ${res.remaining} remain: run it again to re-queue more.` : '';
          return {
            json: { preview: { ...preview, since: opts.since }, recovered: res },
            human:
              `${counted}.\n${res.replayed ? 'Already done by this request id: ' : ''}` +
              `${res.requeued} re-queued as new attempts of the same events.${left}`,
          };
        }),
    );
}

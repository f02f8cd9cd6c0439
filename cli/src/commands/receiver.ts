import { Option, type Command } from 'commander';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { parseEventTypes } from '../args';
import { deliveryFields, deliveryJson } from '../deliveryViews';
import { healthJson, healthText } from '../healthViews';
import { indent } from '../output';
import { requireOwnerActor } from '../ownerActor';
import { receiverFields, receiverJson, receiverTable, signingSecretBlock } from '../receiverViews';
import { defineCommand, defineGroup, onWebhooks } from '../run';
import { registerDeliveryCommands } from './receiverDeliveries';
import { registerSecretCommands } from './receiverSecret';

const TYPES = EVENT_TYPES.names.join(',');

const toProto = (names: EventTypeName[]): number[] => names.map((n) => EVENT_TYPES.toProto(n));

/**
 * brandctl receiver add | list | update | remove | test | health, the secret rotation
 * (receiverSecret.ts) and the deliveries (receiverDeliveries.ts).
 */
export function registerReceiverCommands(program: Command): void {
  const receiver = defineGroup(
    program,
    'receiver',
    "Manage a brand's event receivers (signed HTTPS webhooks) and their deliveries.",
    [
      `brandctl receiver add --brand br_123 --url https://hooks.acme.example/brand --label "Order sync" --events submission.approved,payout.paid --actor ana@acme.test`,
      'brandctl receiver list --brand br_123',
      'brandctl receiver deliveries rcv_123',
      'brandctl receiver rotate-secret rcv_123',
      'brandctl receiver recover rcv_123 --since 6h',
    ],
  );

  defineCommand(receiver, 'add', 'Register a receiver; its signing secret is printed once.', [
    `brandctl receiver add --brand br_123 --url https://hooks.acme.example/brand --label "Order sync" --events ${TYPES} --actor ana@acme.test`,
  ])
    .requiredOption('--brand <brandId>', 'the brand whose events it receives (br_...)')
    .requiredOption(
      '--url <https-url>',
      'a public https URL (no chat incoming webhooks: use a relay)',
    )
    .requiredOption('--label <text>', 'a label you will recognise, e.g. "Order sync"')
    .requiredOption('--events <types>', `comma-separated, from: ${TYPES}`, parseEventTypes)
    .requiredOption(
      '--actor <email>',
      'the brand owner adding it (recorded for audit; anyone else is refused)',
    )
    .action(
      (
        opts: { brand: string; url: string; label: string; events: EventTypeName[]; actor: string },
        cmd: Command,
      ) =>
        onWebhooks(cmd, async ({ backend, settings, json, notice }) => {
          await requireOwnerActor(backend, settings, opts.brand, opts.actor, 'add receivers');
          const res = await backend.webhooks('addReceiver', {
            brand_id: opts.brand,
            url: opts.url,
            label: opts.label,
            events: toProto(opts.events),
            actor_email: opts.actor,
          });
          if (!res.receiver) throw new Error('the webhooks service returned no receiver');
          if (json)
            notice('warning: the signing secret is shown once; keep it on the receiving server.');
          return {
            json: { receiver: receiverJson(res.receiver), secret: res.secret },
            human:
              `Receiver added.\n\n${indent(receiverFields(res.receiver))}\n\n` +
              `${indent(signingSecretBlock(res.secret))}\n\n` +
              `Send a test delivery: brandctl receiver test ${res.receiver.id}`,
          };
        }),
    );

  defineCommand(receiver, 'list', "List a brand's receivers, newest first (never their secrets).", [
    'brandctl receiver list --brand br_123',
  ])
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .action((opts: { brand: string }, cmd: Command) =>
      onWebhooks(cmd, async ({ backend }) => {
        const { receivers } = await backend.webhooks('listReceivers', { brand_id: opts.brand });
        return {
          json: { receivers: receivers.map(receiverJson) },
          human:
            receivers.length === 0
              ? `No receivers for ${opts.brand} yet. Add one with: brandctl receiver add --help`
              : receiverTable(receivers),
        };
      }),
    );

  defineCommand(
    receiver,
    'update <receiverId>',
    "Change a receiver's URL, label, events or state.",
    [
      'brandctl receiver update rcv_123 --events submission.approved',
      'brandctl receiver update rcv_123 --enable',
    ],
  )
    .option('--url <https-url>', 'a new public https URL')
    .option('--label <text>', 'a new label')
    .option('--events <types>', `a new selection, from: ${TYPES}`, parseEventTypes)
    .addOption(
      new Option('--enable', 'enable it (clears the disabled reason and failures)').conflicts(
        'disable',
      ),
    )
    .addOption(new Option('--disable', 'disable it (pending deliveries are failed)'))
    .action(
      (
        receiverId: string,
        opts: {
          url?: string;
          label?: string;
          events?: EventTypeName[];
          enable?: boolean;
          disable?: boolean;
        },
        cmd: Command,
      ) =>
        onWebhooks(cmd, async ({ backend }) => {
          const res = await backend.webhooks('updateReceiver', {
            receiver_id: receiverId,
            url: opts.url,
            label: opts.label,
            events: toProto(opts.events ?? []),
            enabled: opts.enable ? true : opts.disable ? false : undefined,
          });
          if (!res.receiver) throw new Error('the webhooks service returned no receiver');
          return {
            json: { receiver: receiverJson(res.receiver) },
            human: `Receiver updated.\n\n${indent(receiverFields(res.receiver))}`,
          };
        }),
    );

  defineCommand(receiver, 'remove <receiverId>', 'Remove a receiver and its delivery history.', [
    'brandctl receiver remove rcv_123',
  ]).action((receiverId: string, _opts: unknown, cmd: Command) =>
    onWebhooks(cmd, async ({ backend }) => {
      const res = await backend.webhooks('removeReceiver', { receiver_id: receiverId });
      if (!res.receiver) throw new Error('the webhooks service returned no receiver');
      return {
        json: { receiver: receiverJson(res.receiver), removed: true },
        human: `Receiver ${res.receiver.id} (${res.receiver.label}) removed; it gets no more deliveries.`,
      };
    }),
  );

  defineCommand(
    receiver,
    'test <receiverId>',
    'Queue one test delivery ("test": true, sample data). Queued is not delivered.',
    [
      'brandctl receiver test rcv_123',
      'brandctl receiver test rcv_123 --event payout.paid',
      'brandctl receiver test rcv_123 --new-secret',
    ],
  )
    .addOption(
      new Option('--event <type>', "one of the receiver's own types (default: its first)").choices(
        EVENT_TYPES.names,
      ),
    )
    .option('--new-secret', "sign it with the pending rotation's new secret (see rotate-secret)")
    .action(
      (receiverId: string, opts: { event?: EventTypeName; newSecret?: boolean }, cmd: Command) =>
        onWebhooks(cmd, async ({ backend }) => {
          const res = await backend.webhooks('testReceiver', {
            receiver_id: receiverId,
            event_type: opts.event ? EVENT_TYPES.toProto(opts.event) : 0,
            with_new_secret: opts.newSecret === true,
          });
          if (!res.delivery) throw new Error('the webhooks service returned no delivery');
          return {
            json: { delivery: deliveryJson(res.delivery), queued: true, delivered: false },
            human:
              `Test delivery queued (not yet delivered).\n\n${indent(deliveryFields(res.delivery))}\n\n` +
              'A worker sends it shortly; only a 2xx from the receiver means it was accepted there.\n' +
              (opts.newSecret
                ? `See whether it accepted the new secret with: brandctl receiver list --brand ${res.delivery.brand_id}`
                : `See the outcome with: brandctl receiver delivery ${res.delivery.id}`),
          };
        }),
    );

  defineCommand(
    receiver,
    'health <receiverId>',
    "A receiver's health over the last hour, 24 hours and 7 days: success rate, failures, latency.",
    ['brandctl receiver health rcv_123', 'brandctl receiver health rcv_123 --json'],
  ).action((receiverId: string, _opts: unknown, cmd: Command) =>
    onWebhooks(cmd, async ({ backend }) => {
      const [{ receiver: r }, { windows }] = await Promise.all([
        backend.webhooks('getReceiver', { receiver_id: receiverId }),
        backend.webhooks('getReceiverHealth', { receiver_id: receiverId }),
      ]);
      if (!r) throw new Error('the webhooks service returned no receiver');
      return { json: healthJson(r, windows), human: healthText(r, windows) };
    }),
  );

  registerSecretCommands(receiver);
  registerDeliveryCommands(receiver);
}

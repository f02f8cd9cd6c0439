import { Option, type Command } from 'commander';
import { ACTOR_FLAGS, ACTOR_HELP, parseDuration, parseSwitchAt } from '../args';
import { indent, shortTime } from '../output';
import { receiverFields, receiverJson, signingSecretBlock } from '../receiverViews';
import { checkedActor, receiverBrand } from '../ownerActor';
import { defineCommand, onWebhooks } from '../run';

/** How the overlap goes, printed with the new secret. */
const NEXT_STEPS = (id: string) =>
  [
    'Deliveries stay signed with the current secret until you switch. Next:',
    '  1. Add the new secret to the receiver next to the current one (it verifies with either;',
    '     examples/receiver: RECEIVER_SECRETS=<new>,<current>).',
    `  2. Send a test signed with the new secret: brandctl receiver test ${id} --new-secret`,
    `  3. Switch: brandctl receiver switch-secret ${id}   (or --in 24h, or --at <time>)`,
    '  4. After the switch, remove the old secret from the receiver.',
    `To abandon it: brandctl receiver cancel-rotation ${id}`,
  ].join('\n');

/** brandctl receiver rotate-secret | switch-secret | cancel-rotation. */
export function registerSecretCommands(receiver: Command): void {
  defineCommand(
    receiver,
    'rotate-secret <receiverId>',
    'Start a signing-secret rotation: a new secret is printed once; deliveries keep the current one until the switch.',
    ['brandctl receiver rotate-secret rcv_123 --actor ana@acme.test'],
  )
    .option(ACTOR_FLAGS, ACTOR_HELP)
    .action((receiverId: string, opts: { actor?: string }, cmd: Command) =>
      onWebhooks(cmd, async ({ backend, settings, json, notice }) => {
        const actor = await checkedActor(
          backend,
          settings,
          opts.actor,
          receiverBrand(backend, receiverId),
          'rotate signing secrets',
        );
        const res = await backend.webhooks('rotateSecret', {
          receiver_id: receiverId,
          actor_email: actor,
        });
        if (!res.receiver) throw new Error('the webhooks service returned no receiver');
        if (json)
          notice('warning: the new signing secret is shown once; keep it on the receiving server.');
        return {
          json: { receiver: receiverJson(res.receiver), new_secret: res.new_secret },
          human:
            `Rotation started.\n\n${indent(signingSecretBlock(res.new_secret, 'New signing secret'))}\n\n` +
            NEXT_STEPS(receiverId),
        };
      }),
    );

  defineCommand(
    receiver,
    'switch-secret <receiverId>',
    'Put the rotation’s new secret in force, now or at a chosen time (at most 7 days ahead); the old one is then destroyed.',
    [
      'brandctl receiver switch-secret rcv_123',
      'brandctl receiver switch-secret rcv_123 --in 24h',
      'brandctl receiver switch-secret rcv_123 --at 2026-11-21T09:00:00Z --actor ana@acme.test',
    ],
  )
    .option(ACTOR_FLAGS, ACTOR_HELP)
    .addOption(
      new Option('--at <time>', 'when to switch (RFC 3339 with its offset; not in the past)')
        .argParser((v) => parseSwitchAt(v))
        .conflicts('in'),
    )
    .addOption(
      new Option('--in <duration>', 'switch after this long: 30m, 1h, 24h, 7d').argParser(
        parseDuration,
      ),
    )
    .action(
      (receiverId: string, opts: { at?: string; in?: number; actor?: string }, cmd: Command) =>
        onWebhooks(cmd, async ({ backend, settings }) => {
          const actor = await checkedActor(
            backend,
            settings,
            opts.actor,
            receiverBrand(backend, receiverId),
            'switch signing secrets',
          );
          const at =
            opts.in !== undefined ? new Date(Date.now() + opts.in).toISOString() : (opts.at ?? '');
          const res = await backend.webhooks('switchSecret', {
            receiver_id: receiverId,
            at,
            actor_email: actor,
          });
          if (!res.receiver) throw new Error('the webhooks service returned no receiver');
          const switchAt = res.receiver.rotation?.switch_at ?? '';
          return {
            json: {
              receiver: receiverJson(res.receiver),
              switched: switchAt === '',
              switch_at: switchAt || null,
            },
            human:
              (switchAt === ''
                ? 'Switched: every delivery, retries included, is now signed with the new secret; the old one is destroyed.'
                : `Switch scheduled for ${shortTime(switchAt)}: from then on every delivery is signed with the new secret.`) +
              `\n\n${indent(receiverFields(res.receiver))}`,
          };
        }),
    );

  defineCommand(
    receiver,
    'cancel-rotation <receiverId>',
    'Cancel a pending rotation before its switch: the new secret is discarded.',
    ['brandctl receiver cancel-rotation rcv_123 --actor ana@acme.test'],
  )
    .option(ACTOR_FLAGS, ACTOR_HELP)
    .action((receiverId: string, opts: { actor?: string }, cmd: Command) =>
      onWebhooks(cmd, async ({ backend, settings }) => {
        const actor = await checkedActor(
          backend,
          settings,
          opts.actor,
          receiverBrand(backend, receiverId),
          'cancel secret rotations',
        );
        const res = await backend.webhooks('cancelRotation', {
          receiver_id: receiverId,
          actor_email: actor,
        });
        if (!res.receiver) throw new Error('the webhooks service returned no receiver');
        return {
          json: { receiver: receiverJson(res.receiver), cancelled: true },
          human: `Rotation cancelled: the new secret is discarded; deliveries stay signed with the current one.`,
        };
      }),
    );
}

import type { Command } from 'commander';
import type { Campaign, Payout, Submission } from '@brand/proto/records/v1';
import type { EventTypeName } from '@brand/shared/enums';
import { formatFields, indent, shortTime, type Rendered } from '../output';
import { defineCommand, defineGroup, runCommand, type CommandContext } from '../run';
import { registerSubmissionList } from './submissionList';

type ChangedRecord = Submission | Payout | Campaign;

/** What every business change prints: the new record and the event it produced. */
interface ChangeOutcome {
  resource: 'submissions' | 'payouts' | 'campaigns';
  record: ChangedRecord | undefined;
  eventId: string;
  event: EventTypeName;
}

/**
 * The record as JSON, "resource" first and absent values as null: the same shape as the
 * event's object that receivers get, so an operator sees what was sent.
 */
const recordJson = (resource: string, record: ChangedRecord) => ({
  resource,
  ...Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v ?? null])),
});

function render(outcome: ChangeOutcome, done: string): Rendered {
  const { record } = outcome;
  if (!record) throw new Error('the records service returned no record');
  const fields = Object.entries(record)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]): [string, string] => [
      k,
      k.endsWith('_at') ? shortTime(String(v)) : Array.isArray(v) ? v.join(', ') : String(v),
    ]);
  return {
    json: { record: recordJson(outcome.resource, record), event_id: outcome.eventId },
    human:
      `${done}\n\n${indent(formatFields(fields))}\n\n` +
      `Event ${outcome.eventId} (${outcome.event}) is in the outbox; the relay publishes it\n` +
      'to Kafka, and subscribed receivers get it with this id.',
  };
}

/** One command of a group: `<noun> <verb> <id>` running `change` and printing its outcome. */
function changeCommand(
  group: Command,
  spec: { usage: string; summary: string; examples: string[] },
  change: (id: string, opts: Record<string, string>, ctx: CommandContext) => Promise<Rendered>,
): Command {
  return defineCommand(group, spec.usage, spec.summary, spec.examples).action(
    (id: string, opts: Record<string, string>, cmd: Command) =>
      runCommand(cmd, (ctx) => change(id, opts, ctx)),
  );
}

/**
 * brandctl submission approve|reject, payout pay, campaign settle: the business changes
 * that emit the four events (docs/webhooks.md "Business changes and events"). Each prints the new
 * record and the event id; a repeated or invalid change is refused with the current status.
 */
export function registerChangeCommands(program: Command): void {
  const submission = defineGroup(
    program,
    'submission',
    'List submissions waiting for review, and approve or reject them.',
    [
      'brandctl submission list --brand br_123 --status pending',
      'brandctl submission approve sub_123',
      'brandctl submission reject sub_123 --reason "Brand logo not visible"',
    ],
  );
  registerSubmissionList(submission);
  changeCommand(
    submission,
    {
      usage: 'approve <submissionId>',
      summary: 'Approve a pending submission (emits submission.approved).',
      examples: [
        'brandctl submission approve sub_123',
        'brandctl submission approve sub_123 --json',
      ],
    },
    async (id, _opts, { backend }) => {
      const res = await backend.records('approveSubmission', { submission_id: id });
      return render(
        {
          resource: 'submissions',
          record: res.submission,
          eventId: res.event_id,
          event: 'submission.approved',
        },
        `Submission ${id} approved.`,
      );
    },
  );
  changeCommand(
    submission,
    {
      usage: 'reject <submissionId>',
      summary: 'Reject a pending submission with a reason (emits submission.rejected).',
      examples: ['brandctl submission reject sub_123 --reason "Video under 15 seconds"'],
    },
    async (id, opts, { backend }) => {
      const res = await backend.records('rejectSubmission', {
        submission_id: id,
        reason: opts.reason ?? '',
      });
      return render(
        {
          resource: 'submissions',
          record: res.submission,
          eventId: res.event_id,
          event: 'submission.rejected',
        },
        `Submission ${id} rejected.`,
      );
    },
  ).requiredOption('--reason <text>', 'why, shown to the creator (1 to 500 characters)');

  const payout = defineGroup(program, 'payout', 'Mark payouts paid.', [
    'brandctl payout pay po_123',
  ]);
  changeCommand(
    payout,
    {
      usage: 'pay <payoutId>',
      summary: 'Mark a pending or processing payout paid (emits payout.paid).',
      examples: ['brandctl payout pay po_123', 'brandctl payout pay po_123 --json'],
    },
    async (id, _opts, { backend }) => {
      const res = await backend.records('payPayout', { payout_id: id });
      return render(
        { resource: 'payouts', record: res.payout, eventId: res.event_id, event: 'payout.paid' },
        `Payout ${id} paid.`,
      );
    },
  );

  const campaign = defineGroup(program, 'campaign', 'Settle campaigns.', [
    'brandctl campaign settle cmp_123',
  ]);
  changeCommand(
    campaign,
    {
      usage: 'settle <campaignId>',
      summary: 'Settle a completed campaign (emits campaign.settled).',
      examples: ['brandctl campaign settle cmp_123', 'brandctl campaign settle cmp_123 --json'],
    },
    async (id, _opts, { backend }) => {
      const res = await backend.records('settleCampaign', { campaign_id: id });
      return render(
        {
          resource: 'campaigns',
          record: res.campaign,
          eventId: res.event_id,
          event: 'campaign.settled',
        },
        `Campaign ${id} settled.`,
      );
    },
  );
}

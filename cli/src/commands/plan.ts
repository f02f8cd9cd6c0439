import { Option, type Command } from 'commander';
import type { Plan } from '@brand/proto/plans/v1';
import { PLAN_STATUSES, type PlanStatusName } from '@brand/shared/enums';
import { parseLimit } from '../args';
import { indent, processStreams } from '../output';
import { planFields, planJson, planTable } from '../planViews';
import { defineCommand, defineGroup, runCommand } from '../run';

interface ListOptions {
  brand: string;
  status?: PlanStatusName;
  limit?: number;
  pageToken?: string;
}

/** The plans service answers every command here; failures name it, not records. */
const runPlans: typeof runCommand = (cmd, handler) =>
  runCommand(cmd, handler, processStreams, 'plans');

function present(plan: Plan | undefined): Plan {
  if (!plan) throw new Error('the plans service returned no plan');
  return plan;
}

/** brandctl plan list | show | cancel | complete, through the plans service's admin RPCs. */
export function registerPlanCommands(program: Command): void {
  const plan = defineGroup(
    program,
    'plan',
    "List, show, cancel and complete a brand's campaign plans (prepared over the API or MCP).",
    ['brandctl plan list --brand br_123 --status pending', 'brandctl plan cancel pln_123'],
  );

  defineCommand(plan, 'list', "List a brand's campaign plans, newest first.", [
    'brandctl plan list --brand br_123',
    'brandctl plan list --brand br_123 --status pending --json',
  ])
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .addOption(
      new Option('--status <status>', 'only plans in this state').choices(PLAN_STATUSES.names),
    )
    .option('--limit <n>', 'plans per page, 1-200 (default 50)', parseLimit)
    .option('--page-token <token>', 'the next_page_token of the previous page')
    .action((opts: ListOptions, cmd: Command) =>
      runPlans(cmd, async ({ backend }) => {
        const res = await backend.plans('listPlans', {
          brand_id: opts.brand,
          status: opts.status ? PLAN_STATUSES.toProto(opts.status) : 0,
          page_size: opts.limit,
          page_token: opts.pageToken,
        });
        const more = res.next_page_token
          ? `\n\nMore plans: add --page-token ${res.next_page_token}`
          : '';
        const none = `No ${opts.status ?? ''} plans for ${opts.brand}.`.replace('  ', ' ');
        return {
          json: { plans: res.plans.map(planJson), next_page_token: res.next_page_token ?? null },
          human: res.plans.length === 0 ? none : `${planTable(res.plans)}${more}`,
        };
      }),
    );

  defineCommand(plan, 'show <planId>', 'Show one plan, its private notes included.', [
    'brandctl plan show pln_123',
  ]).action((planId: string, _opts: unknown, cmd: Command) =>
    runPlans(cmd, async ({ backend }) => {
      const p = present((await backend.plans('getPlan', { plan_id: planId })).plan);
      return { json: { plan: planJson(p) }, human: planFields(p) };
    }),
  );

  defineCommand(
    plan,
    'cancel <planId>',
    'Cancel a pending plan: it stops counting toward the pending limit, and a retry with its request_id becomes a conflict.',
    ['brandctl plan cancel pln_123'],
  ).action((planId: string, _opts: unknown, cmd: Command) =>
    runPlans(cmd, async ({ backend }) => {
      const p = present((await backend.plans('cancelPlan', { plan_id: planId })).plan);
      return {
        json: { plan: planJson(p) },
        human: `Plan ${p.id} cancelled.\n\n${indent(planFields(p))}`,
      };
    }),
  );

  defineCommand(
    plan,
    'complete <planId>',
    'Record that the brand completed a pending plan in its wizard; it stops counting toward the pending limit.',
    ['brandctl plan complete pln_123'],
  ).action((planId: string, _opts: unknown, cmd: Command) =>
    runPlans(cmd, async ({ backend }) => {
      const p = present((await backend.plans('completePlan', { plan_id: planId })).plan);
      return {
        json: { plan: planJson(p) },
        human: `Plan ${p.id} completed.\n\n${indent(planFields(p))}`,
      };
    }),
  );
}

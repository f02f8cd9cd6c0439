import type { Plan } from '@brand/proto/plans/v1';
import { CAMPAIGN_TYPES, PLAN_STATUSES } from '@brand/shared/enums';
import { formatCentavos } from '@brand/shared/plans';
import { formatFields, formatTable, shortTime } from './output';

/** The operator's word for a wire value; "unspecified" for UNSPECIFIED or unknown numbers. */
const statusName = (value: number): string => PLAN_STATUSES.fromProto(value) ?? 'unspecified';
const typeName = (value: number): string => CAMPAIGN_TYPES.fromProto(value) ?? 'unspecified';

/** PHP with two decimals, e.g. "PHP 25000.50". */
const money = (centavos: number): string => `PHP ${formatCentavos(centavos)}`;

/**
 * A plan as JSON: enums as words, the budget both as centavos and as the PHP decimal the
 * brand typed, and `notes`: brandctl is the owners' view, the one place notes are shown.
 */
export const planJson = (p: Plan) => ({
  id: p.id,
  brand_id: p.brand_id,
  request_id: p.request_id,
  status: statusName(p.status),
  campaign_type: typeName(p.campaign_type),
  title: p.title,
  goal: p.goal,
  planned_for: p.planned_for,
  review_on: p.review_on,
  planning_budget: formatCentavos(p.planning_budget_amount),
  planning_budget_amount: p.planning_budget_amount,
  currency: 'PHP',
  summary: p.summary ?? null,
  brief: p.brief ?? null,
  requirements: p.requirements,
  platforms: p.platforms,
  notes: p.notes ?? null,
  review_path: p.review_path,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

/** Every field of one plan, notes included, as aligned lines. */
export function planFields(p: Plan): string {
  const fields: Array<[string, string]> = [
    ['id', p.id],
    ['brand', p.brand_id],
    ['request id', p.request_id],
    ['status', statusName(p.status)],
    ['type', typeName(p.campaign_type)],
    ['title', p.title],
    ['goal', p.goal],
    ['planned for', p.planned_for],
    ['review on', p.review_on],
    ['budget', money(p.planning_budget_amount)],
  ];
  if (p.summary) fields.push(['summary', p.summary]);
  if (p.brief) fields.push(['brief', p.brief]);
  if (p.requirements.length) fields.push(['requirements', p.requirements.join('; ')]);
  if (p.platforms.length) fields.push(['platforms', p.platforms.join(', ')]);
  fields.push(['notes', p.notes ?? '-']);
  fields.push(['review path', p.review_path]);
  fields.push(['created', shortTime(p.created_at)]);
  fields.push(['updated', shortTime(p.updated_at)]);
  return formatFields(fields);
}

export function planTable(plans: Plan[]): string {
  return formatTable(
    ['ID', 'STATUS', 'TYPE', 'TITLE', 'PLANNED FOR', 'BUDGET', 'CREATED'],
    plans.map((p) => [
      p.id,
      statusName(p.status),
      typeName(p.campaign_type),
      p.title.replace(/\s+/g, ' '),
      p.planned_for,
      money(p.planning_budget_amount),
      shortTime(p.created_at),
    ]),
  );
}

import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { COMMON_HEADERS, errorResponse, ref } from '../../openapi/responses';
import { PlanResult } from '../../plans/planResult';
import { CAMPAIGN_PLANS_PATH, CampaignPlanRequest } from './input';

/** The OpenAPI operation, from the same schemas that validate and render. */
export function describeV1CampaignPlans(registry: OpenAPIRegistry): void {
  const planResponse = (description: string, extra: Record<string, unknown> = {}) => ({
    description,
    headers: { ...COMMON_HEADERS, ...extra } as ResponseConfig['headers'],
    content: { 'application/json': { schema: PlanResult } },
  });
  registry.registerPath({
    method: 'post',
    path: CAMPAIGN_PLANS_PATH,
    operationId: 'prepare_campaign_plan',
    tags: ['Campaign plans'],
    summary: 'Prepare a campaign plan for review',
    description:
      'Prepares a draft campaign plan that a person at the brand reviews and completes in the campaign wizard, opened at `review_path`. ' +
      'Nothing is published, funded or approved. Needs a key with the `campaigns:prepare` permission (live keys only). ' +
      'Idempotent per brand on `request_id`: a retry with identical input (after canonical JSON: key order, `25000.5` vs `"25000.50"` ' +
      'and blank optional fields do not matter) answers 200 with `Idempotent-Replayed: true` and the original plan, from any key of the brand; ' +
      'changed input, or a cancelled plan, is 409 `request_conflict`. A brand holds at most 200 pending plans; the next is 422 `pending_plan_limit`. ' +
      '`notes` is stored for the brand and never returned.',
    security: [{ bearerAuth: [] }],
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: CampaignPlanRequest } },
      },
    },
    responses: {
      200: planResponse('A replay: the plan an earlier identical request prepared, unchanged.', {
        'Idempotent-Replayed': {
          description: 'Always `true` on a replay; absent on a new plan.',
          schema: { type: 'string', enum: ['true'] },
        },
      }),
      201: planResponse('The plan was prepared (status pending).'),
      400: errorResponse(
        '`validation_failed` with one `details` entry per failing field, or `malformed_request` (not JSON).',
      ),
      401: errorResponse('`missing_key` or `invalid_key`.', {
        'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
      }),
      403: errorResponse(
        '`insufficient_permission`: the key lacks `campaigns:prepare`, or the brand is not on Plus or above; `network_not_allowed`: the key works only from its allowed networks.',
      ),
      405: errorResponse('`method_not_allowed`: only POST.'),
      409: errorResponse(
        '`request_conflict`: the request_id was used with different input, or its plan was cancelled. Use a new request_id.',
      ),
      413: errorResponse('`payload_too_large`: the body exceeds 576 KiB.'),
      415: errorResponse('`unsupported_media_type`: send `Content-Type: application/json`.'),
      422: errorResponse(
        '`pending_plan_limit`: the brand has 200 pending plans. Complete or cancel plans in the campaign wizard, then retry.',
      ),
      429: errorResponse('`rate_limited`: the brand spent its budget.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
      500: errorResponse('`internal_error`; never carries internals.'),
      503: errorResponse(
        '`service_unavailable`: the plans service is briefly unreachable; retry with the same request_id.',
        {
          'Retry-After': ref('headers', 'Retry-After'),
        },
      ),
    },
  });
}

import { BrandRecordsError } from '../errors/brandRecordsError.js';
import type { components, operations } from '../generated/openapi.js';
import type { ResponseMeta } from '../responseMeta.js';
import { planShape } from '../http/responseShape.js';
import type { Transport } from '../http/transport.js';
import { webCrypto } from '../webCrypto.js';

type PrepareBody =
  operations['prepare_campaign_plan']['requestBody']['content']['application/json'];

/**
 * The plan input of docs/contract.md#plan-input (generated from the OpenAPI document). `request_id` may be
 * left out: `prepare` then mints one.
 */
export type CampaignPlanInput = Omit<PrepareBody, 'request_id'> & { request_id?: string };

/** A prepared plan (status `pending`), as the API returns it. */
export type CampaignPlan = components['schemas']['CampaignPlan'];

/** The plan, plus whether it was a replay of an earlier identical request, plus response meta. */
export type PreparedCampaignPlan = CampaignPlan & {
  /** True when the API answered an earlier plan for this `request_id` (`Idempotent-Replayed: true`). */
  replayed: boolean;
  meta: ResponseMeta;
};

export interface PrepareOptions {
  /**
   * The plan's idempotency key (a UUID). Give one, stored with your own job, when the call may
   * be repeated after your process restarts; otherwise one is minted for this call.
   */
  requestId?: string;
  signal?: AbortSignal;
}

/** POST /api/v1/campaign-plans. */
export class CampaignPlans {
  constructor(private readonly transport: Transport) {}

  /**
   * Prepares a campaign plan for the brand to review at `review_path` (nothing is published,
   * funded or approved). The `request_id` (options.requestId, else input.request_id, else a
   * fresh UUID) is fixed before the first attempt and sent unchanged on every retry, so a retry
   * can never create a second plan: the API replays the first (`replayed: true`).
   *
   * Throws ValidationFailedError (per-field `details`), RequestConflictError (the id was used
   * with other input, or its plan was cancelled), PendingPlanLimitError, InsufficientPermissionError
   * (the key lacks `campaigns:prepare`), and the transport's errors; each carries `planRequestId`.
   */
  async prepare(
    input: CampaignPlanInput,
    options: PrepareOptions = {},
  ): Promise<PreparedCampaignPlan> {
    const { request_id: inputId, ...fields } = input;
    if (options.requestId !== undefined && inputId !== undefined && options.requestId !== inputId) {
      throw new TypeError(
        'prepare: options.requestId and input.request_id differ; give one of them.',
      );
    }
    const requestId = options.requestId ?? inputId ?? webCrypto().randomUUID();
    try {
      const { body, meta } = await this.transport.request<CampaignPlan>({
        method: 'POST',
        path: '/api/v1/campaign-plans',
        body: { request_id: requestId, ...fields },
        // The request_id makes a repeat harmless: the API replays instead of creating again.
        idempotent: true,
        shape: planShape,
        signal: options.signal,
      });
      return { ...body, replayed: meta.headers.get('idempotent-replayed') === 'true', meta };
    } catch (error) {
      if (error instanceof BrandRecordsError) error.planRequestId = requestId;
      throw error;
    }
  }
}

import { PlansServiceClient, type PreparePlanResponse } from '@brand/proto/plans/v1';
import { CAMPAIGN_TYPES } from '@brand/shared/enums';
import { connectClient, createCaller, HealthClient, type ServingStatus } from '@brand/shared/grpc';
import type { PlanInput } from '@brand/shared/plans';

/** What the gateway needs from the plans process. Every call has the configured deadline. */
export interface PlansApi {
  /** PreparePlan for the authenticated brand; the answer carries `replayed`. */
  preparePlan(brandId: string, input: PlanInput, requestId: string): Promise<PreparePlanResponse>;
  health(): Promise<ServingStatus>;
  close(): void;
}

/**
 * The plans process's PlansService and health, over one channel. This file only maps
 * domain values to messages; createCaller adds the credential, the deadline and the error
 * mapping (AppErrors: the service's own code, or service_unavailable).
 */
export function createPlansApi(
  address: string,
  settings: { deadlineMs: number; token: string },
): PlansApi {
  const plansClient = connectClient(PlansServiceClient, address);
  const plans = createCaller(plansClient, settings);
  const health = new HealthClient(connectClient(HealthClient.Stub, address, plansClient));

  return {
    preparePlan: (brandId, input, requestId) =>
      plans(
        'preparePlan',
        {
          brand_id: brandId,
          input: {
            ...input,
            campaign_type: CAMPAIGN_TYPES.toProto(input.campaign_type),
            requirements: input.requirements ?? [],
            platforms: input.platforms ?? [],
          },
        },
        { requestId },
      ),
    health: () => health.check(settings.deadlineMs),
    close: () => plansClient.close(),
  };
}

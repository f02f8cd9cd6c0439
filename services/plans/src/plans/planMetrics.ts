import { isAppError } from '@brand/shared/errors';
import { Counter, type Registry } from '@brand/shared/metrics';

/** What a PreparePlan call came to, a bounded label. */
export type PrepareOutcome =
  'created' | 'replayed' | 'conflict' | 'limit_reached' | 'invalid' | 'error';

/** What a CancelPlan or CompletePlan call came to, a bounded label. */
export type FinishOutcome = 'changed' | 'unchanged' | 'refused' | 'not_found' | 'invalid' | 'error';

/** What the plans handlers report for each call. */
export interface PlanObserver {
  prepared(outcome: PrepareOutcome): void;
  finished(action: 'cancel' | 'complete', outcome: FinishOutcome): void;
}

/** The outcome of a PreparePlan call that threw. */
export function prepareFailure(err: unknown): PrepareOutcome {
  if (!isAppError(err)) return 'error';
  switch (err.code) {
    case 'request_conflict':
      return 'conflict';
    case 'pending_plan_limit':
      return 'limit_reached';
    case 'validation_failed':
    case 'invalid_parameter':
      return 'invalid';
    default:
      return 'error';
  }
}

/** The outcome of a CancelPlan or CompletePlan call that threw. */
export function finishFailure(err: unknown): FinishOutcome {
  if (!isAppError(err)) return 'error';
  switch (err.code) {
    case 'precondition_failed':
      return 'refused';
    case 'not_found':
      return 'not_found';
    case 'validation_failed':
      return 'invalid';
    default:
      return 'error';
  }
}

/**
 * The plan series on /metrics: PreparePlan outcomes (created, replayed, conflict,
 * limit_reached, invalid, error) and plan cancels and completes by outcome (changed,
 * unchanged: it already was, refused: the other terminal state, not_found, invalid, error).
 * Refused calls (a bad caller credential) never reach the handlers: gRPC counts them.
 */
export function planMetrics(registry: Registry): PlanObserver {
  const prepared = new Counter({
    name: 'plans_prepare_requests_total',
    help: 'PreparePlan calls by outcome: created, replayed, conflict, limit_reached, invalid, error.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const finished = new Counter({
    name: 'plans_finish_requests_total',
    help: 'CancelPlan (action=cancel) and CompletePlan (action=complete) calls by outcome: changed, unchanged, refused, not_found, invalid, error.',
    labelNames: ['action', 'outcome'] as const,
    registers: [registry],
  });
  return {
    prepared: (outcome) => prepared.inc({ outcome }),
    finished: (action, outcome) => finished.inc({ action, outcome }),
  };
}

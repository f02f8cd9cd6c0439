import type { ApiKey } from '@brand/proto/access/v1';
import type { Plan } from '@brand/proto/plans/v1';
import {
  DeliveryStatus,
  ListDeliveriesRequest,
  type Delivery,
  type HealthWindow,
  type Receiver,
} from '@brand/proto/webhooks/v1';
import { PLAN_STATUSES } from '@brand/shared/enums';
import { bestEffort } from '../../clients/bestEffort';
import type { ConsoleDeps } from '../../consoleDeps';
import type { MemberSession } from '../../session/memberSession';
import { keyState } from '../keys/keyState';
import { lastDaySlices, type Slice } from '../usage/usageSeries';
import { combinedWindow } from './combinedWindow';

/** How many of the newest failures, waiting plans and expiring keys the overview lists. */
const SHOWN = 5;
/** A key expiring within this is "soon" (a rolled key's overlap is at most 7 days). */
const EXPIRING_SOON_MS = 7 * 86_400_000;
/** Receivers whose health is summed into the deliveries chart (the default limit is 10). */
const RECEIVERS_CHARTED = 25;

/** A delivery whose last attempt failed, with its receiver's label. */
export interface Failure {
  delivery: Delivery;
  receiverLabel: string;
}

/**
 * What the overview shows; a part is undefined when its service could not answer (the page
 * says so for that panel and shows the rest).
 */
export interface OverviewData {
  receivers?: Receiver[];
  /** Attempts of real events over the last 24 hours at every receiver, hour by hour. */
  deliveries?: HealthWindow;
  requests?: { slices: Slice[]; limitPerMinute: number };
  failures?: Failure[];
  plans?: { pendingCount: number; pendingLimit: number; newest: Plan[] };
  expiringKeys?: ApiKey[];
}

/**
 * Loads every panel of a brand's overview at once, each from the service that owns it, as the
 * member (every role may read all of them), each best effort.
 */
export async function loadOverview(
  deps: ConsoleDeps,
  s: MemberSession,
  now: number,
): Promise<OverviewData> {
  const { webhooks, access, usage, plans } = deps.clients;
  const as = { assertion: s.assertion };
  const brand_id = s.brand.id;
  const optional = <T>(what: string, call: () => Promise<T>) => bestEffort(deps.log, what, call);
  // the notice's loader read the receivers for this GET already (attentionLoader.ts)
  const receivers =
    s.receivers ??
    (await optional(
      'receivers',
      async () => (await webhooks('listReceivers', { brand_id }, as)).receivers,
    ));
  const [deliveries, requests, failures, pending, keys] = await Promise.all([
    optional('delivery health', async () => {
      const charted = (receivers ?? []).slice(0, RECEIVERS_CHARTED);
      const health = await Promise.all(
        charted.map((r) => webhooks('getReceiverHealth', { receiver_id: r.id }, as)),
      );
      return combinedWindow(
        '24h',
        health.flatMap((h) => h.windows.filter((w) => w.window === '24h')),
      );
    }),
    optional('usage', async () => {
      const u = await usage('getUsage', { brand_id, key_id: '', window: '7d' }, as);
      return { slices: lastDaySlices(u), limitPerMinute: Number(u.limit_per_minute) };
    }),
    optional('failed deliveries', () => newestFailures(deps, s, receivers ?? [])),
    optional('plans', () =>
      plans(
        'listPlans',
        { brand_id, status: PLAN_STATUSES.toProto('pending'), page_size: SHOWN },
        as,
      ),
    ),
    optional('keys', async () => (await access('listKeys', { brand_id }, as)).keys),
  ]);
  return {
    receivers: receivers && needsFirst(receivers),
    deliveries,
    requests,
    failures,
    plans: pending && {
      pendingCount: pending.pending_count,
      pendingLimit: pending.pending_limit || 200,
      newest: pending.plans,
    },
    expiringKeys: keys
      ?.filter(
        (k) =>
          keyState(k, now) === 'expiring' &&
          Date.parse(k.expires_at ?? '') - now < EXPIRING_SOON_MS,
      )
      .sort((a, b) => Date.parse(a.expires_at ?? '') - Date.parse(b.expires_at ?? '')),
  };
}

/**
 * The brand's newest failures across receivers: deliveries that failed for good, and those
 * waiting to retry after a failed attempt, newest failed attempt first.
 */
async function newestFailures(
  deps: ConsoleDeps,
  s: MemberSession,
  receivers: Receiver[],
): Promise<Failure[]> {
  const as = { assertion: s.assertion };
  const list = (status: DeliveryStatus, limit: number) =>
    deps.clients.webhooks(
      'listDeliveries',
      ListDeliveriesRequest.fromPartial({ brand_id: s.brand.id, status, limit }),
      as,
    );
  const [failed, waiting] = await Promise.all([
    list(DeliveryStatus.DELIVERY_STATUS_FAILED, SHOWN),
    list(DeliveryStatus.DELIVERY_STATUS_PENDING, 50),
  ]);
  const labels = new Map(receivers.map((r) => [r.id, r.label]));
  const lastAttemptAt = (d: Delivery) => Date.parse(d.attempts.at(-1)?.started_at ?? d.created_at);
  return [...failed.deliveries, ...waiting.deliveries.filter((d) => d.attempt_count > 0)]
    .sort((a, b) => lastAttemptAt(b) - lastAttemptAt(a))
    .slice(0, SHOWN)
    .map((delivery) => ({
      delivery,
      receiverLabel: labels.get(delivery.receiver_id) ?? delivery.receiver_id,
    }));
}

/**
 * Receivers in the order an owner looks at them: disabled by the service, failing, catching up
 * (a backlog waits), paused by an owner, then the healthy ones; newest first within each.
 */
export function needsFirst(receivers: Receiver[]): Receiver[] {
  const rank = (r: Receiver) =>
    !r.enabled && r.disabled_by_service
      ? 0
      : r.enabled && r.failing_since
        ? 1
        : r.enabled && r.waiting > 0
          ? 2
          : !r.enabled
            ? 3
            : 4;
  return [...receivers].sort((a, b) => rank(a) - rank(b));
}

import { type DeliveryEvent } from './event';

/**
 * A well-formed delivery body for tests and local tries, shaped exactly like the
 * service's (submission.approved unless overridden). Extra record fields go in `object`.
 */
export function sampleEvent(
  overrides: Partial<Omit<DeliveryEvent, 'data'>> & { object?: Record<string, unknown> } = {},
): DeliveryEvent {
  const { object, ...fields } = overrides;
  return {
    id: 'evt_2kQ9x7Lm4Pz8Rt1Vb3Nc5D',
    type: 'submission.approved',
    created_at: '2026-11-22T10:00:00.123456Z',
    test: false,
    brand_id: 'br_7Hq2Wm9Kd4Lp',
    ...fields,
    data: {
      object: { resource: 'submissions', id: 'sub_4Tn8Qw2Er6Ty', status: 'approved', ...object },
    },
  };
}

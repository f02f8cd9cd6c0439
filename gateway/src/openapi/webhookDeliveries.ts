import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import type { ResourceName } from '@brand/shared/resources';
import { RECORD_SCHEMAS } from '../records/recordSchemas';

/**
 * The four event deliveries (docs/contract.md#delivery-request, #delivery-body,
 * #receiver-verification) as the document's `webhooks`: what a receiver gets, in the same
 * machine-readable description as the API. The webhooks service builds the body
 * (services/webhooks/src/send/sign.ts deliveryBody) from the object the records service
 * wrote (changeService.ts eventObjectJson: `resource`, then every field of the record as the
 * read API renders it), so `data.object` is that resource's record schema with `resource`.
 */

/** The resource whose record each event carries in `data.object`. */
const EVENT_RESOURCE = {
  'submission.approved': 'submissions',
  'submission.rejected': 'submissions',
  'payout.paid': 'payouts',
  'campaign.settled': 'campaigns',
} as const satisfies Record<EventTypeName, ResourceName>;

const SUMMARY: Record<EventTypeName, string> = {
  'submission.approved': 'A pending submission was approved',
  'submission.rejected': 'A pending submission was rejected',
  'payout.paid': 'A payout was paid',
  'campaign.settled': 'A completed campaign was settled',
};

const SIGNATURE_RULE =
  'Verify before trusting anything: keep the raw body bytes before parsing; compute HMAC-SHA256 keyed with the ' +
  "receiver's signing secret over the X-Service-Timestamp value, a period, and the raw body (`<timestamp>.<raw body>`), " +
  'in lowercase hex; compare it in constant time with the digest after `sha256=` in X-Service-Signature. Refuse a ' +
  'missing or malformed header and a timestamp more than five minutes before or after your clock; accept only the ' +
  'event types the receiver was configured for; process each event once, deduplicating on the event id and the ' +
  "record id, never on X-Service-Attempt. The client package's verifyWebhook does all of it.";

/** `data.object`: `resource` first, then the record exactly as the read API renders it. */
function eventObject(resource: (typeof EVENT_RESOURCE)[EventTypeName]) {
  return z
    .object({ resource: z.literal(resource).meta({ description: "The record's resource." }) })
    .extend(RECORD_SCHEMAS[resource].shape)
    .meta({
      description: `The ${resource} record after the change, in the fields of GET /api/v1/${resource}/{id}, with its resource name.`,
    });
}

/** The JSON body of one event type's delivery. */
function deliveryBody(type: EventTypeName) {
  return z
    .object({
      id: z
        .string()
        .regex(/^evt_[A-Za-z0-9]+$/)
        .meta({
          description:
            'The event id (`evt_...`): minted with the business change, the same on every receiver and every retry.',
        }),
      type: z.literal(type).meta({ description: 'The event type, as in X-Service-Event.' }),
      created_at: z.string().meta({
        format: 'date-time',
        description: 'When the business change happened. RFC 3339, UTC, microseconds.',
      }),
      test: z.boolean().meta({
        description:
          'True for a Test delivery queued from the Developers area: sample data, no business change behind it.',
      }),
      brand_id: z
        .string()
        .regex(/^br_[A-Za-z0-9]+$/)
        .meta({ description: 'The brand (`br_...`).' }),
      data: z.object({ object: eventObject(EVENT_RESOURCE[type]) }),
    })
    .meta({
      description: `The JSON body of a \`${type}\` delivery: the event, and the record it is about in data.object.`,
    });
}

const deliveryHeaders = (type: EventTypeName) =>
  z.object({
    'X-Service-Event': z.literal(type).meta({ description: 'The event type.' }),
    'X-Service-Timestamp': z
      .string()
      .regex(/^[0-9]+$/)
      .meta({
        description:
          'Unix time in seconds when this attempt was signed (each attempt is signed afresh). Refuse one more than five minutes from your clock.',
        examples: ['1793520000'],
      }),
    'X-Service-Signature': z
      .string()
      .regex(/^sha256=[0-9a-f]{64}$/)
      .meta({
        description:
          '`sha256=<hex digest>`: HMAC-SHA256 of `<X-Service-Timestamp>.<raw body>` keyed with the signing secret; compare in constant time (the rule in full is in the description of the delivery).',
      }),
    'X-Service-Attempt': z
      .string()
      .regex(/^[1-9][0-9]*$/)
      .meta({
        description:
          'Which attempt this is (1, 2, ...); not an event identifier: never deduplicate on it.',
      }),
  });

/**
 * Registers the four deliveries under the document's `webhooks`, one POST each. Their
 * schemas are inline rather than named: the generator emits the components of
 * schemas it meets under `paths` only, so a named schema met only under `webhooks` would be
 * a dangling $ref.
 */
export function describeWebhookDeliveries(registry: OpenAPIRegistry): void {
  for (const type of EVENT_TYPES.names) {
    const body = deliveryBody(type);
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook_${type.replace('.', '_')}`,
      tags: ['Events'],
      summary: SUMMARY[type],
      description:
        `POSTed to each receiver the brand registered for \`${type}\`, with a JSON body. ${SIGNATURE_RULE} ` +
        'A 2xx within 30 s accepts the delivery; anything else is retried (10 attempts over about 3 days), and redirects are never followed.',
      security: [],
      request: {
        headers: deliveryHeaders(type),
        body: { required: true, content: { 'application/json': { schema: body } } },
      },
      responses: {
        200: { description: 'Any 2xx accepts the delivery; the body is ignored.' },
        410: { description: 'Gone: the receiver is disabled and gets no more deliveries.' },
        429: {
          description:
            'Retried after at least 60 s; a Retry-After up to twice the scheduled delay is honoured.',
        },
      },
    });
  }
}

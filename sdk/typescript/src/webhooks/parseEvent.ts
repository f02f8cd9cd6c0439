function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** A body of the documented shape whose `type` is not yet checked against the accepted ones. */
export interface ParsedDelivery {
  id: string;
  type: string;
  created_at: string;
  test: boolean;
  brand_id: string;
  data: { object: { resource: string; id: string; [field: string]: unknown } };
  [field: string]: unknown;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a body that has passed signature verification: UTF-8 JSON with `id`, `type`,
 * `created_at`, `test`, `brand_id` and `data.object` holding `resource` and `id`. Undefined for
 * anything else, so a receiver answers 400 instead of failing on `event.data.object.id` later.
 * Unknown extra fields are kept: the service may add fields.
 */
export function parseDelivery(body: Uint8Array): ParsedDelivery | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(body));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !isRecord(parsed.data) || !isRecord(parsed.data.object))
    return undefined;
  const object = parsed.data.object;
  const wellFormed =
    isNonEmptyString(parsed.id) &&
    isNonEmptyString(parsed.type) &&
    isNonEmptyString(parsed.created_at) &&
    typeof parsed.test === 'boolean' &&
    isNonEmptyString(parsed.brand_id) &&
    isNonEmptyString(object.resource) &&
    isNonEmptyString(object.id);
  return wellFormed ? (parsed as ParsedDelivery) : undefined;
}

/*
 * What the big identity providers really send, normalised before scimmy checks it against the
 * schema (issue 61). Each quirk is named by the provider that sends it, and kept as narrow as
 * that provider's habit, so nothing else a request says is changed.
 */

type Json = Record<string, unknown>;

/** "True"/"False" (any case) as the booleans they mean; anything else as it came. */
function booleanOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : value;
}

/**
 * A PatchOp body as scimmy reads it:
 * - Microsoft Entra ID writes `op` capitalised ("Replace", "Add"); RFC 7644 3.5.2 names them in
 *   lower case and scimmy compares exactly.
 * - Entra ID sends `active` as a string: `{"op": "Replace", "path": "active", "value": "False"}`,
 *   and also inside a path-less replace: `{"op": "replace", "value": {"active": "False"}}`.
 */
export function normalisePatch(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const ops = (body as Json).Operations;
  if (!Array.isArray(ops)) return body;
  return {
    ...(body as Json),
    Operations: ops.map((op: unknown) => {
      if (typeof op !== 'object' || op === null || Array.isArray(op)) return op;
      const o = { ...(op as Json) };
      if (typeof o.op === 'string') o.op = o.op.toLowerCase();
      if (typeof o.path === 'string' && o.path.trim().toLowerCase() === 'active') {
        o.value = booleanOf(o.value);
      } else if (o.path === undefined && typeof o.value === 'object' && o.value !== null) {
        const value = { ...(o.value as Json) };
        for (const key of Object.keys(value)) {
          if (key.toLowerCase() === 'active') value[key] = booleanOf(value[key]);
        }
        o.value = value;
      }
      return o;
    }),
  };
}

/** A full User (POST, PUT) whose `active` came as "True"/"False" (some Entra ID versions). */
export function normaliseResource(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const b = body as Json;
  return 'active' in b ? { ...b, active: booleanOf(b.active) } : body;
}

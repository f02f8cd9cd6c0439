/** The API's front page in the OpenAPI document: the decisions a client needs to know. */
export const API_DESCRIPTION = `Read-only access to one brand's records for that brand's own integrations, plus an assistant (MCP) endpoint.
The whole contract (the API rules, the assistant tools, campaign plans, webhooks and what receivers must check, errors,
limits and versioning) is described in the service's repository at docs/contract.md.

## Authentication
Send a brand API key as \`Authorization: Bearer <key>\`, with the scheme spelled exactly \`Bearer\`. The key alone selects the
brand: no parameter can switch to another one. Keys look like \`bk_live_...\` or \`bk_test_...\`; a deployment serves one
environment and refuses keys of the other with \`invalid_key\`. A revoked key is refused at once, on every instance. Keep keys
on servers: never in browser code, repositories or support messages.

Order of checks on \`/api/v1/*\`: the method (405 \`method_not_allowed\` with \`Allow\`, for a method the route does not
serve), authentication, then the rate limit, then the resource name (404 \`unknown_resource\`), then the parameters (400).
So an unauthenticated request with a method the route serves is 401 whatever the path.

## Pagination
Records come newest first (\`created_at\` descending, then \`id\`). \`limit\` is 1-200 (default 50); anything else is 400
\`invalid_parameter\`, never silently clamped. A full page carries \`next_cursor\`; a shorter page is the last and has none.
Cursors are opaque and signed: they only work for the brand and resource that issued them (else 400 \`invalid_cursor\`).
Walking the cursor returns each record exactly once, also while new records arrive or old ones change status; it is not an
update feed. \`since\` (RFC 3339, exclusive) returns only records created after it; combined with \`cursor\` both apply, and a
cursor keeps the \`since\` it was issued under. Unknown query parameters are refused, to surface typos.

## Rate limits
Per brand and per minute (sliding window): Plus 60, Pro 120, Enterprise 240 requests, shared by all the brand's keys, all
instances, REST and MCP. Every authenticated request counts. Over the limit: 429 \`rate_limited\` with \`Retry-After\` (whole
seconds). Every counted response carries \`RateLimit-Policy\` and \`RateLimit\`. Requests without a valid key (and the public
OpenAPI file) are limited per client address; past that budget even key checks stop (429) until it recovers.

## Polling: ETag and 304
Every list page carries a strong \`ETag\` of exactly what it holds: the brand, the resource, the query, and every record on
it, including later status changes (any insert or status change of a record of a resource gives every page of that
resource a new tag, on every instance, before the change is acknowledged). Send the tag back as \`If-None-Match\`: while
the page is unchanged the answer is \`304 Not Modified\` with no body, the same \`ETag\` and the RateLimit fields, decided
without reading the page. A 304 counts against the rate limit like any other request: the contract counts requests, and
one rule for every request keeps the budget predictable across REST and MCP (GitHub does not count them; we do). Poll a
first page every few seconds with its last \`ETag\`; on 200, store the new body and its \`ETag\`. \`If-None-Match: *\` is
ignored (200). Responses stay \`Cache-Control: no-store\`: shared caches and browsers keep nothing of a brand's records, so
revalidation is the client's own: it keeps the body it received and sends the tag itself.

## Errors
Every error body is \`{"error": {"code", "message", "request_id", "details?"}}\` and every response carries \`X-Request-Id\`.
Bad input is always a 4xx with a stable code; a 5xx never contains internals. On the MCP endpoint, refusals inside
\`tools/call\` are results with \`isError: true\` carrying the same code.

## Versioning
The HTTP API is versioned by the \`/api/v1\` path prefix; additions (new fields, new optional parameters) do not change it.
\`since\` is the older filter, still supported; prefer \`cursor\` for walking.`;

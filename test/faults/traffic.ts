// Steady traffic while a fault is injected: REST pages, MCP tools/call, plan preparations
// with request_ids (retried under the same id after a 503, as a client should), business
// changes through the records RPC, and a rate-limit probe brand sending twice its budget.
// Every outcome is recorded with its time, for the verdict.
import { randomUUID } from 'node:crypto';
import { planBody } from '@brand/testkit';
import type { AnyWorld as World, FaultBrand } from './world';

export type RequestKind = 'rest' | 'mcp' | 'plan' | 'probe';

export interface HttpOutcome {
  kind: RequestKind;
  at: number;
  /** HTTP status, or 0 when no answer came (connection refused, reset, timed out). */
  status: number;
  retryAfter: string | null;
}

/** A business change the records service accepted: its event must reach the receiver. */
export interface AcceptedChange {
  at: number;
  submissionId: string;
  eventId: string;
}

export interface PreparedPlan {
  requestId: string;
  planId: string;
}

export interface TrafficLog {
  http: HttpOutcome[];
  changes: AcceptedChange[];
  /** Submissions whose approval was sent, accepted or not (a cut-off call may have committed). */
  attemptedSubmissions: Set<string>;
  plans: PreparedPlan[];
  /** A replay answered another plan id than the first answer: exactly-once broken. */
  planMismatches: string[];
}

export interface Traffic {
  log: TrafficLog;
  stop(): Promise<void>;
}

/** Requests per second of each stream. */
const EVERY_MS = { rest: 400, mcp: 800, plan: 1_000, change: 500, probe: 250 };
const REQUEST_TIMEOUT_MS = 10_000;

async function send(
  url: string,
  init: RequestInit,
): Promise<{ status: number; retryAfter: string | null; body: unknown }> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body };
  } catch {
    return { status: 0, retryAfter: null, body: undefined };
  }
}

/** What the walk reads of a list tool's result. */
interface McpListResult {
  isError?: boolean;
  structuredContent?: { next_cursor?: string };
}

/** Starts every stream; stop() ends them and waits for requests in flight. */
export function startTraffic(world: World, main: FaultBrand, probe: FaultBrand): Traffic {
  const log: TrafficLog = {
    http: [],
    changes: [],
    attemptedSubmissions: new Set(),
    plans: [],
    planMismatches: [],
  };
  let running = true;
  const auth = (key: string) => ({
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
  });
  const record = (kind: RequestKind, r: { status: number; retryAfter: string | null }) =>
    log.http.push({ kind, at: Date.now(), status: r.status, retryAfter: r.retryAfter });

  const every = async (ms: number, step: () => Promise<void>) => {
    while (running) {
      const started = Date.now();
      await step();
      await new Promise((r) => setTimeout(r, Math.max(0, ms - (Date.now() - started))));
    }
  };

  // REST and MCP walk the campaigns as a sync job does (issue 25): follow next_cursor, start
  // over after the last page, ask a refused page again. Each page is a message on a page
  // stream, so a records replica killed mid-walk breaks streams with pages in flight.
  let restCursor: string | undefined;
  const rest = () =>
    every(EVERY_MS.rest, async () => {
      const query = restCursor === undefined ? '' : `&cursor=${encodeURIComponent(restCursor)}`;
      const r = await send(`${world.gatewayUrl}/api/v1/campaigns?limit=2${query}`, {
        headers: auth(main.key),
      });
      record('rest', r);
      if (r.status === 200) restCursor = (r.body as { next_cursor?: string }).next_cursor;
    });

  let rpcId = 0;
  let mcpCursor: string | undefined;
  const mcp = () =>
    every(EVERY_MS.mcp, async () => {
      const body = {
        jsonrpc: '2.0',
        id: ++rpcId,
        method: 'tools/call',
        params: {
          name: 'list_campaigns',
          arguments: mcpCursor === undefined ? { limit: 2 } : { limit: 2, cursor: mcpCursor },
        },
      };
      const r = await send(`${world.gatewayUrl}/api/mcp`, {
        method: 'POST',
        headers: auth(main.key),
        body: JSON.stringify(body),
      });
      record('mcp', r);
      const result = (r.body as { result?: McpListResult } | undefined)?.result;
      if (r.status === 200 && result && !result.isError)
        mcpCursor = result.structuredContent?.next_cursor;
    });

  // A plan whose answer did not come (503, no answer) is retried under the same request_id.
  const firstAnswer = new Map<string, string>();
  let retrying: Record<string, unknown> | undefined;
  const plan = () =>
    every(EVERY_MS.plan, async () => {
      const body = retrying ?? planBody({ request_id: randomUUID() });
      const r = await send(`${world.gatewayUrl}/api/v1/campaign-plans`, {
        method: 'POST',
        headers: auth(main.key),
        body: JSON.stringify(body),
      });
      record('plan', r);
      const requestId = body.request_id as string;
      if (r.status >= 200 && r.status < 300) {
        const planId = (r.body as { id?: string } | undefined)?.id ?? '';
        const first = firstAnswer.get(requestId);
        if (first !== undefined && first !== planId) log.planMismatches.push(requestId);
        firstAnswer.set(requestId, planId);
        log.plans.push({ requestId, planId });
        retrying = undefined;
      } else {
        retrying = r.status === 0 || r.status >= 500 ? body : undefined;
      }
    });

  const change = () =>
    every(EVERY_MS.change, async () => {
      const submissionId = main.pending[0];
      if (!submissionId) return;
      log.attemptedSubmissions.add(submissionId);
      try {
        const res = await world.admin.records(
          'approveSubmission',
          { submission_id: submissionId },
          { deadlineMs: 5_000 },
        );
        log.changes.push({ at: Date.now(), submissionId, eventId: res.event_id });
        main.pending.shift();
      } catch (err) {
        // not accepted (records or PostgreSQL down): tried again; a conflict means it was
        // approved after all (the call was cut off after the commit): move on
        if ((err as { code?: string }).code !== 'service_unavailable') main.pending.shift();
      }
    });

  const probeStream = () =>
    every(EVERY_MS.probe, async () => {
      record(
        'probe',
        await send(`${world.gatewayUrl}/api/v1/links?limit=1`, { headers: auth(probe.key) }),
      );
    });

  const streams = [rest(), mcp(), plan(), change(), probeStream()];
  return {
    log,
    async stop() {
      running = false;
      await Promise.all(streams);
    },
  };
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '@brand/shared/errors';
import { planBody, type AdminClient } from '@brand/testkit';
import { PLANS_PATH } from './plans';

/**
 * Steady client traffic for the rolling-restart test: what real integrations do while a
 * platform team rolls the deployment. Every answer is classified; anything a client could
 * not have handled by waiting and retrying (a 5xx other than 503 with Retry-After, a
 * dropped connection, a lost reply) is a violation.
 */
export interface TrafficLog {
  counts: Record<string, number>;
  violations: string[];
  /** Accepted plans: the body sent (its request_id is the idempotency key) and the id answered. */
  plans: Array<{ requestId: string; body: Record<string, unknown>; id: string }>;
  /** Event ids of committed business changes. */
  eventIds: string[];
}

export function newTrafficLog(): TrafficLog {
  return { counts: {}, violations: [], plans: [], eventIds: [] };
}

const count = (log: TrafficLog, what: string): void => {
  log.counts[what] = (log.counts[what] ?? 0) + 1;
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * What a load balancer does in front of the gateways: probe each one's /readyz on its
 * internal listener (where the chart's readiness probe goes; the public port has no keyless
 * probe, issue 47) every 100 ms and send traffic only to those that answer 200. A gateway
 * told to stop reports 503 for SHUTDOWN_DRAIN_MS while still serving, so the balancer leaves
 * it in time. `targets` is read on every round: a restarted gateway's internal port is new.
 */
export class Balancer {
  private ready: string[] = [];
  private next = 0;
  private running = true;
  private readonly probing: Promise<void>;

  constructor(private readonly targets: () => Array<{ url: string; readyUrl: string }>) {
    this.probing = this.probe();
  }

  private async probe(): Promise<void> {
    while (this.running) {
      const answers = await Promise.all(
        this.targets().map(async ({ url, readyUrl }) => {
          try {
            const res = await fetch(readyUrl, { signal: AbortSignal.timeout(1_000) });
            await res.arrayBuffer();
            return res.status === 200 ? url : undefined;
          } catch {
            return undefined;
          }
        }),
      );
      this.ready = answers.filter((u): u is string => u !== undefined);
      await sleep(100);
    }
  }

  /** A ready gateway, round-robin, once one is ready; undefined once the balancer closed. */
  async pick(): Promise<string | undefined> {
    while (this.ready.length === 0) {
      if (!this.running) return undefined;
      await sleep(50);
    }
    this.next = (this.next + 1) % this.ready.length;
    return this.ready[this.next];
  }

  async close(): Promise<void> {
    this.running = false;
    await this.probing;
  }
}

/** A 503 that tells the client when to come back is the one failure clients are promised. */
function classifyHttp(log: TrafficLog, what: string, res: Response): 'ok' | 'retry' | 'bad' {
  if (res.status < 500) return 'ok';
  if (res.status === 503 && res.headers.get('retry-after')) {
    count(log, `${what} 503`);
    return 'retry';
  }
  log.violations.push(`${what}: HTTP ${res.status} without Retry-After`);
  return 'bad';
}

export interface LoopContext {
  log: TrafficLog;
  balancer: Balancer;
  /** True while traffic should continue. */
  running: () => boolean;
  /**
   * The pause between one read loop's requests: enough traffic that every restart meets
   * requests in flight (each loop still sends dozens a second), without spending both cores
   * on reads the test does not need.
   */
  paceMs: number;
}

/** GET a page again and again: every answer a 200 page or a 503 with Retry-After. */
export async function restReads(ctx: LoopContext, key: string): Promise<void> {
  while (ctx.running()) {
    const url = await ctx.balancer.pick();
    if (!url) return;
    try {
      const res = await fetch(`${url}/api/v1/submissions?limit=20`, {
        headers: { Authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(15_000),
      });
      const body = (await res.json()) as { data?: unknown[] };
      const verdict = classifyHttp(ctx.log, 'REST', res);
      if (verdict === 'ok') {
        if (res.status === 200 && Array.isArray(body.data)) count(ctx.log, 'REST 200');
        else ctx.log.violations.push(`REST: unexpected ${res.status} ${JSON.stringify(body)}`);
        await sleep(ctx.paceMs);
      } else if (verdict === 'retry') await sleep(100);
    } catch (err) {
      ctx.log.violations.push(`REST: request failed: ${String(err)}`);
    }
  }
}

/**
 * MCP tools/call through the official SDK client (one per gateway, stateless): every call a
 * page, or an isError result saying the service is unavailable, never a transport failure.
 */
export async function mcpCalls(ctx: LoopContext, key: string): Promise<void> {
  const clients = new Map<string, Client>();
  const clientFor = async (url: string): Promise<Client> => {
    const existing = clients.get(url);
    if (existing) return existing;
    const client = new Client({ name: 'rolling-restart-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    clients.set(url, client);
    return client;
  };
  try {
    while (ctx.running()) {
      const url = await ctx.balancer.pick();
      if (!url) return;
      try {
        const client = await clientFor(url);
        const result = (await client.callTool({
          name: 'list_submissions',
          arguments: { limit: 20 },
        })) as CallToolResult;
        if (!result.isError && Array.isArray(result.structuredContent?.data)) {
          count(ctx.log, 'MCP ok');
          await sleep(ctx.paceMs);
        } else if (JSON.stringify(result.content).includes('service_unavailable')) {
          count(ctx.log, 'MCP unavailable');
          await sleep(100);
        } else {
          ctx.log.violations.push(`MCP: unexpected result ${JSON.stringify(result).slice(0, 300)}`);
        }
      } catch (err) {
        ctx.log.violations.push(`MCP: call failed: ${String(err)}`);
        clients.delete(url);
      }
    }
  } finally {
    await Promise.all([...clients.values()].map((c) => c.close().catch(() => undefined)));
  }
}

/**
 * Prepares campaign plans, each with its own request_id, retrying a 503 with the same
 * body as a client should, until `max` are accepted. Pacing keeps the brand under
 * its 200 pending plans.
 */
export async function planPreparations(
  ctx: LoopContext,
  key: string,
  opts: { max: number; everyMs: number },
): Promise<void> {
  let n = 0;
  while (ctx.running() && ctx.log.plans.length < opts.max) {
    n += 1;
    // request_id is the plan's idempotency key (docs/contract.md#plan-input): a retry sends the same body
    const body = planBody({ title: `Rolling plan ${n}` });
    const requestId = body.request_id as string;
    for (let attempt = 1; ; attempt += 1) {
      const url = await ctx.balancer.pick();
      if (!url) return;
      try {
        const res = await fetch(`${url}${PLANS_PATH}`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${key}`,
            'Content-Type': 'application/json',
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const out = (await res.json()) as { id?: string };
        const verdict = classifyHttp(ctx.log, 'plans', res);
        if (verdict === 'ok' && (res.status === 201 || res.status === 200) && out.id) {
          count(ctx.log, `plans ${res.status}`);
          ctx.log.plans.push({ requestId, body, id: out.id });
          break;
        }
        if (verdict === 'ok') {
          ctx.log.violations.push(`plans: unexpected ${res.status} ${JSON.stringify(out)}`);
          break;
        }
        if (verdict === 'bad' || attempt >= 50) break;
        await sleep(200);
      } catch (err) {
        ctx.log.violations.push(`plans: request failed: ${String(err)}`);
        break;
      }
    }
    await sleep(opts.everyMs);
  }
}

/** How long one business change may take before its caller gives up. */
const CHANGE_DEADLINE_MS = 30_000;

/** The gRPC status behind a service_unavailable (fromServiceError's three). */
function grpcCodeOf(err: AppError): string {
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  const names: Record<number, string> = {
    1: 'CANCELLED',
    4: 'DEADLINE_EXCEEDED',
    14: 'UNAVAILABLE',
  };
  return typeof code === 'number' ? (names[code] ?? `status ${code}`) : 'no gRPC status';
}

/**
 * Business changes through the records admin RPC (as brandctl makes them): approve the
 * next pending submission. An unavailable service is retried; a retry finding the change
 * already made means a committed change's reply was lost, which graceful shutdown forbids.
 * Each call may take 30 s: a client that gives up sooner on a slow (loaded) machine loses a
 * reply that was still coming, which says nothing of a stop; a violation names what each
 * earlier attempt got, so a lost reply can be told from one given up on.
 */
export async function businessChanges(
  ctx: LoopContext,
  admin: AdminClient,
  pendingIds: string[],
  everyMs: number,
): Promise<void> {
  for (const submissionId of pendingIds) {
    if (!ctx.running()) return;
    const earlier: string[] = [];
    for (let attempt = 1; ; attempt += 1) {
      try {
        const change = await admin.records(
          'approveSubmission',
          { submission_id: submissionId },
          { deadlineMs: CHANGE_DEADLINE_MS },
        );
        ctx.log.eventIds.push(change.event_id);
        count(ctx.log, attempt === 1 ? 'changes' : 'changes after a retry');
        break;
      } catch (err) {
        if (err instanceof AppError && err.code === 'service_unavailable' && attempt < 50) {
          count(ctx.log, 'changes unavailable');
          earlier.push(grpcCodeOf(err));
          await sleep(200);
          continue;
        }
        const before = earlier.length ? ` after ${earlier.join(', ')}` : '';
        ctx.log.violations.push(
          `change ${submissionId} (attempt ${attempt}${before}): ${String(err)}`,
        );
        break;
      }
    }
    await sleep(everyMs);
  }
}

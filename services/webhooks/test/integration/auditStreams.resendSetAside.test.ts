import type { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import type { Caller } from '@brand/shared/grpc';
import { makeBrandWithKey, waitFor, type Stack } from '@brand/testkit';
import {
  httpsDestination,
  startAuditStreamStack,
  type AuditStreamStack,
  type HttpsDestination,
} from '../support/auditStreamFixtures';

/**
 * Sending again what an audit stream set aside (a standing left-out until 2026-11-30: an entry
 * its destination refused as too large alone on every attempt of a round was never sent again,
 * whatever was fixed). A real HTTPS JSON-lines destination refuses one entry 413 until that
 * entry is set aside and the stream has gone on; then it is fixed, and ResendSetAside delivers
 * the set-aside entry exactly once, after later positions (documented as out of order), each
 * call recorded; a second call while it is queued, and one after it was delivered, queue nothing.
 * The retry schedule is scaled so that a round (75 h unscaled) takes about 3 s.
 */

const RETRY_TIME_SCALE = 0.00001;

let audit: AuditStreamStack;
let stack: Stack;
let streams: Caller<AuditStreamServiceClient>;
let server: HttpsDestination;
let base = '';
/** The destination refuses (413) any body holding this text; '' once it is fixed. */
let refuseHolding = '';
/** Positions the destination took, in arrival order. */
const accepted: number[] = [];

beforeAll(async () => {
  audit = await startAuditStreamStack('audit-resend', {
    RETRY_TIME_SCALE: String(RETRY_TIME_SCALE),
  });
  ({ stack, streams } = audit);
  server = await httpsDestination(audit.ca.tls, (_path, raw) => {
    const body = raw.toString('utf8');
    if (refuseHolding !== '' && body.includes(refuseHolding))
      return { status: 413, text: 'request entity too large' };
    for (const line of body
      .trimEnd()
      .split('\n')
      .filter((l) => l !== ''))
      accepted.push((JSON.parse(line) as { position: number }).position);
    return undefined;
  });
  base = server.base;
}, 120_000);

afterAll(async () => {
  await server?.close();
  await audit?.close();
});

/** The stream with its last deliveries. */
const show = async (id: string) => {
  const got = await streams('getAuditStream', { stream_id: id, deliveries: 100 });
  return { stream: got.stream!, deliveries: got.deliveries };
};

it('sends a set-aside entry again once its destination is fixed: delivered exactly once, out of order, recorded', async () => {
  const brand = await makeBrandWithKey(stack.admin);
  const owner = brand.owner.email;
  const added = await audit.addHttpsStream(brand, 'Resend', `${base}/audit`);
  const id = added.stream!.id;
  // an entry of a key so named is too large for the destination, even alone
  const name = 'R'.repeat(100);
  refuseHolding = name;
  const key = (keyName?: string) =>
    stack.admin.createKey({ brandId: brand.brand.id, actorEmail: owner, name: keyName });
  await key();
  await key(name);
  await key();

  // the oversized entry set aside after its round, and the stream past it
  const aside = await waitFor(
    async () => {
      const got = await show(id);
      return got.stream.set_aside === 1 && got.stream.delivered_through === got.stream.head
        ? got
        : undefined;
    },
    { timeoutMs: 45_000, intervalMs: 200, what: 'the oversized entry set aside' },
  );
  const big = aside.deliveries.find(
    (d) => d.first_position === d.last_position && d.last_error.includes('set aside'),
  )!;
  expect(big.attempts.map((a) => a.status_code)).toEqual(Array(10).fill(413));
  const position = big.first_position;
  expect(accepted).not.toContain(position);
  expect(Math.max(...accepted)).toBeGreaterThan(position);

  // a disabled stream sends nothing: refused
  await streams('updateAuditStream', { stream_id: id, enabled: false, actor_email: '' });
  await expect(
    streams('resendSetAside', { stream_id: id, actor_email: owner }),
  ).rejects.toMatchObject({
    code: 'precondition_failed',
    message: `Audit stream ${id} is disabled; enable it first.`,
  });
  await streams('updateAuditStream', { stream_id: id, enabled: true, actor_email: '' });

  // the destination fixed, the entry sent again; a second call while it is queued adds nothing
  refuseHolding = '';
  const resent = await streams('resendSetAside', { stream_id: id, actor_email: owner });
  expect(resent).toMatchObject({ requeued: 1, remaining: 0 });
  await expect(
    streams('resendSetAside', { stream_id: id, actor_email: owner }),
  ).rejects.toMatchObject({
    code: 'precondition_failed',
    message: expect.stringMatching(/^Nothing set aside/) as unknown,
  });
  await waitFor(
    async () => (await show(id)).stream.set_aside === 0 && accepted.includes(position),
    {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the set-aside entry delivered',
    },
  );
  // exactly once, still, a moment later and after another call
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await expect(
    streams('resendSetAside', { stream_id: id, actor_email: owner }),
  ).rejects.toMatchObject({ code: 'precondition_failed' });
  expect(accepted.filter((p) => p === position)).toHaveLength(1);
  // after later positions: out of order, as documented, with its own position
  expect(accepted.indexOf(position)).toBeGreaterThan(accepted.indexOf(position + 1));
  const after = await show(id);
  expect(after.deliveries.find((d) => d.id === big.id)).toMatchObject({ last_status: 200 });
  expect(after.stream).toMatchObject({ failure_count: 0, delivered_through: after.stream.head });

  // who sent it again, recorded once
  const { rows } = await stack.db.pool.query<{ actor_email: string; summary: string }>(
    `select actor_email, summary from webhooks.activity
     where subject_id = $1 and action = 'audit_stream.set_aside_resent'`,
    [id],
  );
  expect(rows).toEqual([
    {
      actor_email: owner,
      summary: `Resend: 1 set-aside entry sent again, out of order (position ${position})`,
    },
  ]);
});

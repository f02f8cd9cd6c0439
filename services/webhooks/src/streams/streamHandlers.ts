import type { Server } from '@grpc/grpc-js';
import {
  AuditStreamServiceService,
  type AuditStreamServiceServer,
} from '@brand/proto/webhooks/v1/audit';
import { auditorNamed } from '@brand/shared/activity';
import { AppError } from '@brand/shared/errors';
import type { RpcBuilder } from '@brand/shared/grpc';
import { authorizeBrand } from '../admin/authorized';
import { selectHealthRows } from '../health/healthRepo';
import { healthFrom, healthWindows } from '../health/healthWindows';
import { toHealthWindow } from '../admin/toProto';
import { resendSetAside } from './resendSetAside';
import { selectStreamDeliveries } from './streamDeliveries';
import {
  addStream,
  authorizedStream,
  listStreams,
  removeStream,
  testStream,
  updateStream,
  type StreamDeps,
} from './streamService';
import { toBatch, toStream } from './toProto';

/** Last deliveries a stream's page shows by default, and at most. */
const DELIVERIES_DEFAULT = 20;
const DELIVERIES_MAX = 100;

/**
 * AuditStreamService (issue 63), served by the admin role: every RPC a Developers-area one
 * (brandctl with the admin token, or the console for a member: reading audit_streams.read,
 * changing audit_streams.manage, against the stream's own brand; another brand's is not_found).
 * `onChanged` tells this process's worker role that a stream changed (enabled, added).
 */
export function addStreamService(
  server: Server,
  rpc: RpcBuilder,
  deps: StreamDeps & { onChanged?: () => void },
): void {
  const { pool } = deps;
  /** The stream `id` if `actor` may `permission` it (another brand's is not_found). */
  const streamFor = (
    actor: Parameters<typeof authorizedStream>[1],
    permission: Parameters<typeof authorizedStream>[2],
    id: string,
  ) => authorizedStream(pool, actor, permission, id, deps.historyRetentionMs);
  const handlers: AuditStreamServiceServer = {
    addAuditStream: rpc.developers('AddAuditStream', async (req, { actor }) => {
      authorizeBrand(actor, 'audit_streams.manage', req.brand_id);
      const audit = auditorNamed(actor, req.actor_email);
      const { stream, signingSecret } = await addStream(
        deps,
        {
          brandId: req.brand_id,
          kind: req.kind,
          label: req.label,
          url: req.url,
          token: req.token,
          datadogSite: req.datadog_site,
          splunkIndex: req.splunk_index,
          actorEmail: audit.email,
        },
        audit,
      );
      deps.onChanged?.();
      return { stream: toStream(stream), signing_secret: signingSecret };
    }),

    listAuditStreams: rpc.developers('ListAuditStreams', async (req, { actor }) => {
      authorizeBrand(actor, 'audit_streams.read', req.brand_id);
      const streams = await listStreams(pool, req.brand_id, deps.historyRetentionMs);
      return { streams: streams.map(toStream), limit: deps.maxPerBrand };
    }),

    getAuditStream: rpc.developers('GetAuditStream', async (req, { actor }) => {
      const stream = await streamFor(actor, 'audit_streams.read', req.stream_id);
      const wanted = req.deliveries === 0 ? DELIVERIES_DEFAULT : req.deliveries;
      if (wanted > DELIVERIES_MAX) {
        throw new AppError('validation_failed', `deliveries: at most ${DELIVERIES_MAX}.`, {
          details: [{ field: 'deliveries', message: `at most ${DELIVERIES_MAX}` }],
        });
      }
      const nowSec = Math.floor(Date.now() / 1000);
      const [rows, deliveries] = await Promise.all([
        selectHealthRows(pool, stream.id, healthFrom(nowSec)),
        selectStreamDeliveries(pool, stream.id, wanted),
      ]);
      return {
        stream: toStream(stream),
        health: healthWindows(rows, nowSec).map(toHealthWindow),
        deliveries: deliveries.map(toBatch),
      };
    }),

    updateAuditStream: rpc.developers('UpdateAuditStream', async (req, { actor }) => {
      const stream = await streamFor(actor, 'audit_streams.manage', req.stream_id);
      const updated = await updateStream(
        deps,
        stream,
        {
          label: req.label,
          url: req.url,
          token: req.token,
          datadogSite: req.datadog_site,
          splunkIndex: req.splunk_index,
          enabled: req.enabled,
          // empty is absent, as SetSsoConnectionRequest's: a stream always has one
          ifUpdatedAt: req.if_updated_at || undefined,
        },
        auditorNamed(actor, req.actor_email),
      );
      deps.onChanged?.();
      return { stream: toStream(updated) };
    }),

    removeAuditStream: rpc.developers('RemoveAuditStream', async (req, { actor }) => {
      const stream = await streamFor(actor, 'audit_streams.manage', req.stream_id);
      return {
        stream: toStream(await removeStream(deps, stream, auditorNamed(actor, req.actor_email))),
      };
    }),

    testAuditStream: rpc.developers('TestAuditStream', async (req, { actor }) => {
      const stream = await streamFor(actor, 'audit_streams.manage', req.stream_id);
      const deliveryId = await testStream(deps, stream, auditorNamed(actor, req.actor_email));
      deps.onChanged?.();
      return { delivery_id: deliveryId };
    }),

    resendSetAside: rpc.developers('ResendSetAside', async (req, { actor }) => {
      const stream = await streamFor(actor, 'audit_streams.manage', req.stream_id);
      const done = await resendSetAside(deps, stream, auditorNamed(actor, req.actor_email));
      return { stream: toStream(done.stream), requeued: done.requeued, remaining: done.remaining };
    }),
  };
  server.addService(AuditStreamServiceService, handlers);
}

import { AccessServiceClient } from '@brand/proto/access/v1';
import { MemberInvitationServiceClient } from '@brand/proto/access/v1/invitations';
import { ConsolePasskeyServiceClient } from '@brand/proto/access/v1/passkeys';
import { ProvisioningServiceClient } from '@brand/proto/access/v1/provisioning';
import { ConsoleSessionServiceClient } from '@brand/proto/access/v1/sessions';
import { ConsoleSsoServiceClient } from '@brand/proto/access/v1/sso';
import { UsageServiceClient } from '@brand/proto/access/v1/usage';
import { PlansServiceClient } from '@brand/proto/plans/v1';
import { WebhooksServiceClient } from '@brand/proto/webhooks/v1';
import { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import type { Client } from '@grpc/grpc-js';
import { connectClient, HealthClient, type ServingStatus } from '@brand/shared/grpc';
import { createMemberCaller, type MemberCaller } from './memberCaller';

/**
 * The services the console calls, each with the console's credential: records (sign-in,
 * sessions, keys, members, activity), webhooks (receivers, deliveries) and plans. Calls made
 * for a member carry the member assertion; the owning service decides what the member may do.
 */
export interface ConsoleClients {
  sessions: MemberCaller<InstanceType<typeof ConsoleSessionServiceClient>>;
  /** Passkeys and signing in with one (records' ConsolePasskeyService). */
  passkeys: MemberCaller<InstanceType<typeof ConsolePasskeyServiceClient>>;
  /** A brand's identity provider and signing in through it (records' ConsoleSsoService). */
  sso: MemberCaller<InstanceType<typeof ConsoleSsoServiceClient>>;
  /** Invitations and the mail records asks for (records' MemberInvitationService). */
  invitations: MemberCaller<InstanceType<typeof MemberInvitationServiceClient>>;
  /** SCIM tokens, role mappings and the SCIM directory (records' ProvisioningService). */
  provisioning: MemberCaller<InstanceType<typeof ProvisioningServiceClient>>;
  access: MemberCaller<InstanceType<typeof AccessServiceClient>>;
  /** Usage and the request log (records' UsageService). */
  usage: MemberCaller<InstanceType<typeof UsageServiceClient>>;
  webhooks: MemberCaller<InstanceType<typeof WebhooksServiceClient>>;
  /** The brand's audit streams (issue 63), served by the webhooks process. */
  auditStreams: MemberCaller<InstanceType<typeof AuditStreamServiceClient>>;
  plans: MemberCaller<InstanceType<typeof PlansServiceClient>>;
  /** grpc.health.v1 of each service, for /readyz. */
  health(): Promise<Record<'records' | 'webhooks' | 'plans', ServingStatus>>;
  close(): void;
}

export function createConsoleClients(opts: {
  recordsAddr: string;
  webhooksAddr: string;
  plansAddr: string;
  token: string;
  deadlineMs: number;
}): ConsoleClients {
  const settings = { token: opts.token, deadlineMs: opts.deadlineMs };
  const sessionClient = connectClient(ConsoleSessionServiceClient, opts.recordsAddr);
  // Records serves all seven services: one channel.
  const accessClient = connectClient(AccessServiceClient, opts.recordsAddr, sessionClient);
  const usageClient = connectClient(UsageServiceClient, opts.recordsAddr, sessionClient);
  const passkeyClient = connectClient(ConsolePasskeyServiceClient, opts.recordsAddr, sessionClient);
  const ssoClient = connectClient(ConsoleSsoServiceClient, opts.recordsAddr, sessionClient);
  const invitationClient = connectClient(
    MemberInvitationServiceClient,
    opts.recordsAddr,
    sessionClient,
  );
  const provisioningClient = connectClient(
    ProvisioningServiceClient,
    opts.recordsAddr,
    sessionClient,
  );
  const webhooksClient = connectClient(WebhooksServiceClient, opts.webhooksAddr);
  const streamsClient = connectClient(AuditStreamServiceClient, opts.webhooksAddr, webhooksClient);
  const plansClient = connectClient(PlansServiceClient, opts.plansAddr);
  const healthOf = (shareWith: Client, address: string) =>
    new HealthClient(connectClient(HealthClient.Stub, address, shareWith));
  const health = {
    records: healthOf(sessionClient, opts.recordsAddr),
    webhooks: healthOf(webhooksClient, opts.webhooksAddr),
    plans: healthOf(plansClient, opts.plansAddr),
  };
  return {
    sessions: createMemberCaller(sessionClient, settings),
    passkeys: createMemberCaller(passkeyClient, settings),
    sso: createMemberCaller(ssoClient, settings),
    invitations: createMemberCaller(invitationClient, settings),
    provisioning: createMemberCaller(provisioningClient, settings),
    access: createMemberCaller(accessClient, settings),
    usage: createMemberCaller(usageClient, settings),
    webhooks: createMemberCaller(webhooksClient, settings),
    auditStreams: createMemberCaller(streamsClient, settings),
    plans: createMemberCaller(plansClient, settings),
    async health() {
      const [records, webhooks, plans] = await Promise.all([
        health.records.check(1_000),
        health.webhooks.check(1_000),
        health.plans.check(1_000),
      ]);
      return { records, webhooks, plans };
    },
    close() {
      sessionClient.close();
      webhooksClient.close();
      plansClient.close();
    },
  };
}

import { AccessServiceClient } from '@brand/proto/access/v1';
import { ProvisioningServiceClient } from '@brand/proto/access/v1/provisioning';
import { UsageServiceClient } from '@brand/proto/access/v1/usage';
import { PlansServiceClient } from '@brand/proto/plans/v1';
import { RecordsServiceClient } from '@brand/proto/records/v1';
import { EventsFeedServiceClient, WebhooksServiceClient } from '@brand/proto/webhooks/v1';
import { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import { AppError } from '@brand/shared/errors';
import {
  CLIENT_USER_AGENT_METADATA,
  connectClient,
  createCaller,
  type Caller,
} from '@brand/shared/grpcClient';
import type { Settings } from './settings';

/** The services as brandctl sees them: one typed caller per gRPC service, with the admin token. */
export interface Backend {
  /** Where the clients connect, for messages ("cannot reach ... at <addr>"). */
  address: string;
  access: Caller<AccessServiceClient>;
  /** Usage and the request log (records' UsageService). */
  usage: Caller<UsageServiceClient>;
  /** SCIM tokens, role mappings and just-in-time membership (records' ProvisioningService). */
  provisioning: Caller<ProvisioningServiceClient>;
  records: Caller<RecordsServiceClient>;
  /** The plans service (its own address: PLANS_GRPC_ADDR, --plans). */
  plans: Caller<PlansServiceClient>;
  /** The webhooks service (receivers, deliveries), on its own address. */
  webhooks: Caller<WebhooksServiceClient>;
  /** The events feed (the webhooks service's EventsFeedService, which the admin token may read). */
  eventsFeed: Caller<EventsFeedServiceClient>;
  /** Audit streams (the webhooks service's AuditStreamService, issue 63). */
  auditStreams: Caller<AuditStreamServiceClient>;
  /** Closes the channels so the process can exit. */
  close(): void;
}

/**
 * Creates the callers. Fails with AppError('unauthenticated') when no admin token was
 * found: every command drives admin RPCs, so there is no point connecting without one.
 * Channels connect lazily, on the first call.
 */
export function createBackend(settings: Settings): Backend {
  const token = settings.token;
  if (token === undefined) {
    throw new AppError(
      'unauthenticated',
      'no admin token: pass --token or set ADMIN_TOKEN (the local stack generates one in .local/secrets.env).',
    );
  }
  // Names brandctl as the client of every call: the activity rows an operator's command
  // writes say it came from the command line (the service adds the address it connected from).
  const call = {
    deadlineMs: settings.timeoutMs,
    token,
    metadata: {
      [CLIENT_USER_AGENT_METADATA]: `brandctl (node ${process.version}; ${process.platform})`,
    },
  };
  const records = connectClient(RecordsServiceClient, settings.recordsAddr);
  const access = connectClient(AccessServiceClient, settings.recordsAddr, records);
  const usage = connectClient(UsageServiceClient, settings.recordsAddr, records);
  const provisioning = connectClient(ProvisioningServiceClient, settings.recordsAddr, records);
  const plans = connectClient(PlansServiceClient, settings.plansAddr);
  const webhooks = connectClient(WebhooksServiceClient, settings.webhooksAddr);
  const eventsFeed = connectClient(EventsFeedServiceClient, settings.webhooksAddr, webhooks);
  const auditStreams = connectClient(AuditStreamServiceClient, settings.webhooksAddr, webhooks);
  return {
    address: settings.recordsAddr,
    access: createCaller(access, call),
    usage: createCaller(usage, call),
    provisioning: createCaller(provisioning, call),
    records: createCaller(records, call),
    plans: createCaller(plans, call),
    webhooks: createCaller(webhooks, call),
    eventsFeed: createCaller(eventsFeed, call),
    auditStreams: createCaller(auditStreams, call),
    close: () => {
      records.close();
      plans.close();
      webhooks.close();
    },
  };
}

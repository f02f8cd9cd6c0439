import { AccessServiceClient, Environment } from '@brand/proto/access/v1';
import { RecordsServiceClient, Resource, type ListRecordsResponse } from '@brand/proto/records/v1';
import { callUnary, CLIENT_CHANNEL_OPTIONS } from '@brand/shared/grpc';
import type { KeyEnvironment } from '@brand/shared/keys';
import type { ResourceName } from '@brand/shared/resources';
import { credentials, type ChannelCredentials } from '@grpc/grpc-js';
import { HealthClient, type ServingStatus } from './healthClient';

export interface ListRecordsCall {
  brandId: string;
  resource: ResourceName;
  limit: number | undefined;
  cursor: string | undefined;
  since: string | undefined;
}

export interface AuthenticatedKey {
  key_id: string;
  brand_id: string;
  plan: number;
  permissions: string[];
}

/** What the gateway needs from the records process. Every call has the configured deadline. */
export interface RecordsApi {
  listRecords(call: ListRecordsCall, requestId: string): Promise<ListRecordsResponse>;
  authenticateKey(
    keyHashHex: string,
    environment: KeyEnvironment,
    requestId: string,
  ): Promise<AuthenticatedKey>;
  health(): Promise<ServingStatus>;
  close(): void;
}

const resourceEnum = (name: ResourceName): Resource =>
  Resource[`RESOURCE_${name.toUpperCase()}` as keyof typeof Resource];

const ENVIRONMENTS: Record<KeyEnvironment, Environment> = {
  live: Environment.ENVIRONMENT_LIVE,
  test: Environment.ENVIRONMENT_TEST,
};

/**
 * gRPC clients for the records process (RecordsService, AccessService, health) sharing one
 * channel. Failures arrive as AppErrors: the service's own code, or service_unavailable
 * when it cannot be reached within the deadline.
 */
export function createRecordsApi(address: string, deadlineMs: number): RecordsApi {
  const creds: ChannelCredentials = credentials.createInsecure();
  const records = new RecordsServiceClient(address, creds, CLIENT_CHANNEL_OPTIONS);
  // Reuse the records channel for the other stubs, so there is one connection to manage.
  const channelOverride = { ...CLIENT_CHANNEL_OPTIONS, channelOverride: records.getChannel() };
  const access = new AccessServiceClient(address, creds, channelOverride);
  const health = new HealthClient(address, creds, channelOverride);

  return {
    listRecords: (call, requestId) =>
      callUnary<ListRecordsResponse>(
        (md, opts, cb) =>
          records.listRecords(
            {
              brand_id: call.brandId,
              resource: resourceEnum(call.resource),
              limit: call.limit,
              cursor: call.cursor,
              since: call.since,
            },
            md,
            opts,
            cb,
          ),
        { deadlineMs, requestId },
      ),
    authenticateKey: (keyHashHex, environment, requestId) =>
      callUnary<AuthenticatedKey>(
        (md, opts, cb) =>
          access.authenticateKey(
            { key_hash: keyHashHex, environment: ENVIRONMENTS[environment] },
            md,
            opts,
            cb,
          ),
        { deadlineMs, requestId },
      ),
    health: () => health.check(deadlineMs),
    close: () => records.close(),
  };
}

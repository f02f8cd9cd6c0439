import { AccessServiceClient, type AuthenticateKeyResponse } from '@brand/proto/access/v1';
import { RecordsServiceClient, type ListRecordsPageResponse } from '@brand/proto/records/v1';
import { ENVIRONMENTS, RESOURCE_ENUM } from '@brand/shared/enums';
import { connectClient, createCaller, HealthClient, type ServingStatus } from '@brand/shared/grpc';
import type { KeyEnvironment } from '@brand/shared/keys';
import type { ResourceName } from '@brand/shared/resources';

interface ListRecordsCall {
  brandId: string;
  resource: ResourceName;
  limit: number | undefined;
  cursor: string | undefined;
  since: string | undefined;
  withChangeVersion: boolean;
}

/** What the gateway needs from the records process. Every call has the configured deadline. */
export interface RecordsApi {
  /** One page, its records already rendered as the public JSON array. */
  listRecordsPage(call: ListRecordsCall, requestId: string): Promise<ListRecordsPageResponse>;
  authenticateKey(
    keyHashHex: string,
    environment: KeyEnvironment,
    requestId: string,
  ): Promise<AuthenticateKeyResponse>;
  health(): Promise<ServingStatus>;
  close(): void;
}

/**
 * The records process's RecordsService, AccessService and health, over one channel. This
 * file only maps domain values to messages; createCaller adds the credential, the deadline
 * and the error mapping (AppErrors: the service's own code, or service_unavailable).
 */
export function createRecordsApi(
  address: string,
  settings: { deadlineMs: number; token: string },
): RecordsApi {
  const recordsClient = connectClient(RecordsServiceClient, address);
  const records = createCaller(recordsClient, settings);
  const access = createCaller(connectClient(AccessServiceClient, address, recordsClient), settings);
  const health = new HealthClient(connectClient(HealthClient.Stub, address, recordsClient));

  const listRequest = (call: ListRecordsCall) => ({
    brand_id: call.brandId,
    resource: RESOURCE_ENUM.toProto(call.resource),
    limit: call.limit,
    cursor: call.cursor,
    since: call.since,
    with_change_version: call.withChangeVersion,
  });
  return {
    listRecordsPage: (call, requestId) =>
      records('listRecordsPage', listRequest(call), { requestId }),
    authenticateKey: (keyHashHex, environment, requestId) =>
      access(
        'authenticateKey',
        { key_hash: keyHashHex, environment: ENVIRONMENTS.toProto(environment) },
        { requestId },
      ),
    health: () => health.check(settings.deadlineMs),
    close: () => recordsClient.close(),
  };
}

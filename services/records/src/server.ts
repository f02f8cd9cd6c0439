import { createPublicKey, type KeyObject } from 'node:crypto';
import { AccessServiceService } from '@brand/proto/access/v1';
import { MemberInvitationServiceService } from '@brand/proto/access/v1/invitations';
import { ConsolePasskeyServiceService } from '@brand/proto/access/v1/passkeys';
import { ProvisioningServiceService } from '@brand/proto/access/v1/provisioning';
import { ConsoleSessionServiceService } from '@brand/proto/access/v1/sessions';
import { ConsoleSsoServiceService } from '@brand/proto/access/v1/sso';
import { UsageServiceService } from '@brand/proto/access/v1/usage';
import type { Pool } from '@brand/shared/db';
import {
  CallerAuth,
  createGrpcServer,
  createHealth,
  rpcBuilder,
  type CallerTokens,
} from '@brand/shared/grpc';
import type { Logger } from '@brand/shared/logger';
import type { SecretBox } from '@brand/shared/secrets';
import type { RpcObserver } from '@brand/shared/metrics';
import type { Server } from '@grpc/grpc-js';
import type { HealthImplementation } from 'grpc-health-check';
import { accessHandlers } from './access/grpcHandlers';
import type { RevocationNotifier } from './access/revocations';
import { changeHandlers } from './changes/grpcHandlers';
import { invitationHandlers } from './invitations/grpcHandlers';
import { CursorCodec } from './records/cursor';
import { recordsHandlers } from './records/grpcHandlers';
import { RECORDS_SERVICE } from './records/pageAnswerWire';
import type { RecordsPageStreams } from './records/pageStreams';
import type { VersionPublisher } from './versions/versionPublisher';
import { passkeyHandlers } from './passkeys/grpcHandlers';
import { provisioningHandlers } from './provisioning/grpcHandlers';
import type { ScimRateLimit } from './provisioning/scimRateLimit';
import { sessionHandlers } from './sessions/grpcHandlers';
import { ssoHandlers } from './sso/grpcHandlers';
import { signInProviderCache } from './sso/oidcClient';
import type { LogoutTokenLedger } from './sso/logoutTokenLedger';
import type { SsoConnectionDeps } from './sso/ssoConnectionService';
import { usageHandlers } from './usage/grpcHandlers';
import type { SessionDeps } from './sessions/sessionDeps';

export interface RecordsDeps {
  pool: Pool;
  log: Logger;
  revocations: RevocationNotifier;
  callerTokens: CallerTokens;
  /** Counts and times every call for /metrics; optional so tests may leave it out. */
  metrics?: RpcObserver;
  cursorSecret: string;
  cursorSecretsPrevious: string[];
  /** Publishes change versions after writes (ETag and 304 at the gateway). */
  versions: VersionPublisher;
  /** Signing in and sessions (the console); the assertion key also verifies assertions here. */
  sessions: Omit<SessionDeps, 'pool' | 'log'>;
  /** Counts each SCIM request against its token's limit (AuthenticateScimToken). */
  scimLimit: ScimRateLimit;
  /** Seals SSO client secrets (WEBHOOK_SECRET_KEY); without it SSO is refused. */
  secretBox?: SecretBox;
  /**
   * Single sign-on: where records may send requests on a brand's provider's say-so, how it
   * finds domains' DNS proofs, and how fresh a sign-in through it must be to change it.
   */
  sso: Pick<
    SsoConnectionDeps,
    'providerPolicy' | 'findProof' | 'changeProofMs' | 'domainGraceMs'
  > & {
    /** Back-channel logout tokens already used (each is good once). */
    logoutTokens: LogoutTokenLedger;
  };
  /** Pages one StreamRecordsPages stream may have in flight. */
  pageStreamMaxInFlight: number;
  /** Told which brands' request logs grew (the usage retention sweep trims them). */
  usageTouched?: (brands: Iterable<string>) => void;
}

/** The fully qualified names the health service reports on. */
export const SERVICE_NAMES = [
  'brand.records.v1.RecordsService',
  'brand.access.v1.AccessService',
  'brand.access.v1.ConsoleSessionService',
  'brand.access.v1.ConsolePasskeyService',
  'brand.access.v1.ConsoleSsoService',
  'brand.access.v1.MemberInvitationService',
  'brand.access.v1.ProvisioningService',
  'brand.access.v1.UsageService',
];

/**
 * Builds the gRPC server with every service and the health service; does not bind. Every
 * RPC checks the caller's credential; only grpc.health.v1 is open, for probes.
 */
export function createServer(deps: RecordsDeps): {
  server: Server;
  health: HealthImplementation;
  /** The open page streams, drained at shutdown before the server stops. */
  pageStreams: RecordsPageStreams;
} {
  const server = createGrpcServer();
  const health = createHealth(SERVICE_NAMES, server);
  const assertionKey: KeyObject | undefined = deps.sessions.assertionKey;
  const rpc = rpcBuilder({
    log: deps.log,
    auth: new CallerAuth(deps.callerTokens),
    metrics: deps.metrics,
    // records signs the assertions and checks them with the public half of its own key
    memberAssertionKeys: assertionKey ? [createPublicKey(assertionKey)] : [],
  });
  const cursors = new CursorCodec(deps.cursorSecret, deps.cursorSecretsPrevious);
  const records = recordsHandlers(
    {
      pool: deps.pool,
      cursors,
      versions: deps.versions,
      pageStreamMaxInFlight: deps.pageStreamMaxInFlight,
      metrics: deps.metrics,
    },
    rpc,
  );
  server.addService(RECORDS_SERVICE, {
    ...records.handlers,
    ...changeHandlers({ pool: deps.pool, versions: deps.versions }, rpc),
  });
  server.addService(
    AccessServiceService,
    accessHandlers({ pool: deps.pool, log: deps.log, revocations: deps.revocations }, rpc),
  );
  server.addService(
    ConsoleSessionServiceService,
    sessionHandlers({ ...deps.sessions, pool: deps.pool, log: deps.log }, rpc),
  );
  server.addService(
    ConsolePasskeyServiceService,
    passkeyHandlers({ ...deps.sessions, pool: deps.pool, log: deps.log }, rpc),
  );
  server.addService(
    MemberInvitationServiceService,
    invitationHandlers({ ...deps.sessions, pool: deps.pool, log: deps.log }, rpc),
  );
  server.addService(
    ConsoleSsoServiceService,
    ssoHandlers(
      {
        ...deps.sessions,
        pool: deps.pool,
        log: deps.log,
        box: deps.secretBox,
        ...deps.sso,
        providers: signInProviderCache(deps.sso.providerPolicy),
      },
      rpc,
    ),
  );
  server.addService(
    ProvisioningServiceService,
    provisioningHandlers({ pool: deps.pool, revocations: deps.revocations }, rpc, deps.scimLimit),
  );
  server.addService(
    UsageServiceService,
    usageHandlers({ pool: deps.pool, touched: deps.usageTouched ?? (() => undefined) }, rpc),
  );
  return { server, health, pageStreams: records.pageStreams };
}

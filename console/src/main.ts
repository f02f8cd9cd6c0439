// The code cache first (later starts read compiled code instead of compiling it again), then
// telemetry: it instruments libraries as they are loaded (no-op without OTLP config).
import '@brand/shared/compileCache';
import '@brand/shared/telemetry/register';
import { createServer } from 'node:http';
import { createLogger } from '@brand/shared/logger';
import { closeRedis, createRedisClient } from '@brand/shared/redis';
import { dependencyUpGauge } from '@brand/shared/metrics';
import {
  closeHttpServer,
  closingWhenDraining,
  createPublicHttpServer,
  drainHttpSteps,
  listenHttp,
} from '@brand/shared/httpServer';
import { exitOnStartupFailure, onShutdown } from '@brand/shared/shutdown';
import { stopTelemetry } from '@brand/shared/telemetry';
import { createConsoleApp } from './app';
import { startPollLoop } from './background/pollLoop';
import { createConsoleClients } from './clients/consoleClients';
import { loadConsoleConfig, trustProxySetting } from './config';
import { createMailSender, startTlsRequired } from './mail/mailSender';
import { MEMBER_MAIL_BATCH, memberMailTurn } from './mail/memberMailTurn';
import { createSignInMailer } from './mail/signInMail';
import { noticeSourceOf } from './notices/noticeSource';
import { RECEIVER_NOTICE_BATCH, receiverNoticeTurn } from './notices/receiverNoticeTurn';
import { SIGN_IN_MAIL_BATCH, signInMailTurn } from './mail/signInMailTurn';
import { ConsoleMetrics } from './observability/metrics';
import { createOpsApp } from './opsApp';
import { OneTimeReveal } from './reveal/oneTimeReveal';
import { SubmitOnce } from './forms/submitOnce';
import { WrongTokenThrottle } from './scim/wrongTokenThrottle';

/** Composition root: the only place that reads process.env and listens. */
async function main(): Promise<void> {
  const config = loadConsoleConfig(process.env);
  const log = createLogger({ service: 'console', level: config.LOG_LEVEL });
  const publicOrigin = config.CONSOLE_PUBLIC_URL.origin;

  const clients = createConsoleClients({
    recordsAddr: config.RECORDS_GRPC_ADDR,
    webhooksAddr: config.WEBHOOKS_GRPC_ADDR,
    plansAddr: config.PLANS_GRPC_ADDR,
    token: config.CONSOLE_TOKEN,
    deadlineMs: config.GRPC_DEADLINE_MS,
  });
  const redis = createRedisClient({
    url: config.REDIS_URL,
    tlsCaFile: config.REDIS_TLS_CA_FILE,
    passwordFile: config.REDIS_PASSWORD_FILE,
    name: 'console',
    log,
    queueWhileOffline: true,
    commandTimeoutMs: 2_000,
  });
  // The request path's (SCIM's wrong-token counts): while Redis is away its commands fail at
  // once and the count falls back to this process, rather than each request waiting 2 s.
  const limitRedis = createRedisClient({
    url: config.REDIS_URL,
    tlsCaFile: config.REDIS_TLS_CA_FILE,
    passwordFile: config.REDIS_PASSWORD_FILE,
    name: 'console-limits',
    log,
    queueWhileOffline: false,
    commandTimeoutMs: 1_000,
  });
  const metrics = new ConsoleMetrics();
  // The Redis of one-time reveals (a new key's or secret's value), for BrandRecordsRedisUnreachable.
  dependencyUpGauge(metrics.registry, () => ({ redis: redis.status === 'ready' }));
  const sender = createMailSender({
    smtpUrl: config.SMTP_URL,
    from: config.MAIL_FROM,
    requireTls: startTlsRequired(config.SMTP_URL, {
      nodeEnv: config.NODE_ENV,
      allowPlaintext: config.SMTP_ALLOW_PLAINTEXT,
    }),
  });
  const mailer = createSignInMailer({
    sender,
    publicOrigin,
    onOutcome: (outcome) => metrics.signInMails.inc({ outcome }),
  });
  const state = { accepting: true };
  // Sign-in links are minted and mailed here, never on the answer's path (issue 23).
  const signInMails = startPollLoop(signInMailTurn({ clients, mailer, publicOrigin, log }), {
    intervalMs: config.SIGN_IN_MAIL_POLL_MS,
    batchSize: SIGN_IN_MAIL_BATCH,
    log,
    what: 'sign-in mail',
  });

  // Invitations and owners' notices that records asks for (issue 59).
  const memberMails = startPollLoop(
    memberMailTurn({
      clients,
      sender,
      publicOrigin,
      log,
      leaseMs: config.RECEIVER_NOTICE_LEASE_MS,
      onOutcome: (outcome) => metrics.memberMails.inc({ outcome }),
    }),
    {
      intervalMs: config.MEMBER_MAIL_POLL_MS,
      batchSize: MEMBER_MAIL_BATCH,
      log,
      what: 'member mail',
    },
  );

  // The owners' mail when the webhooks service disables a receiver (issue 24).
  const notices = startPollLoop(
    receiverNoticeTurn({
      source: noticeSourceOf(clients),
      sender,
      publicOrigin,
      log,
      leaseMs: config.RECEIVER_NOTICE_LEASE_MS,
      batchSize: RECEIVER_NOTICE_BATCH,
      onOutcome: (outcome) => metrics.receiverNoticeMails.inc({ outcome }),
    }),
    {
      intervalMs: config.RECEIVER_NOTICE_INTERVAL_MS,
      batchSize: RECEIVER_NOTICE_BATCH,
      log,
      what: 'receiver notices',
    },
  );

  const reveal = new OneTimeReveal(redis, config.REDIS_KEY_PREFIX);
  const app = createConsoleApp({
    log,
    clients,
    reveal,
    submitOnce: new SubmitOnce(redis, config.REDIS_KEY_PREFIX, reveal),
    metrics,
    publicOrigin,
    gatewayUrl: config.GATEWAY_PUBLIC_URL.replace(/\/$/, ''),
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    scimWrongTokens: new WrongTokenThrottle(
      limitRedis,
      config.REDIS_KEY_PREFIX,
      {
        perAddress: config.SCIM_AUTH_FAILURES_PER_ADDRESS,
        windowMs: config.SCIM_AUTH_FAILURE_WINDOW_MS,
      },
      log,
    ),
  });
  // Deadlines checked every second; what Node's HTTP layer refuses (431, 400, 408, 417) is
  // answered as the JSON error the gateway's are (createPublicHttpServer). Once shutdown has
  // begun every answer carries Connection: close (closingWhenDraining).
  const server = createPublicHttpServer(closingWhenDraining(state, app), log);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;
  const ops = createServer(
    createOpsApp({
      clients,
      redis,
      metrics,
      state,
      readyWithoutRecords: config.READY_WITHOUT_RECORDS,
    }),
  );
  for (const s of [server, ops]) s.on('error', (err) => exitOnStartupFailure(log, err));
  const [port, opsPort] = await Promise.all([
    listenHttp(server, config.HTTP_PORT, config.HTTP_HOST),
    listenHttp(ops, config.METRICS_PORT, config.METRICS_HOST),
  ]);
  log.info(
    {
      port,
      host: config.HTTP_HOST,
      ops_port: opsPort,
      ops_host: config.METRICS_HOST,
      public_url: publicOrigin,
    },
    'listening',
  );

  onShutdown(log, config.SHUTDOWN_DRAIN_MS + config.SHUTDOWN_GRACE_MS, [
    // As the gateway's: /readyz answers 503 while the pages are still served for
    // SHUTDOWN_DRAIN_MS, every answer with Connection: close, so the ingress stops sending
    // here before the listener closes; then requests in flight finish.
    ...drainHttpSteps({ server, state, drainMs: config.SHUTDOWN_DRAIN_MS }),
    { name: 'close the operations listener', run: () => closeHttpServer(ops) },
    {
      name: 'stop mailing sign-in links (finish the turn in flight)',
      run: () => signInMails.stop(),
    },
    { name: 'stop mailing receiver notices', run: () => notices.stop() },
    { name: 'stop mailing invitations and owners’ notices', run: () => memberMails.stop() },
    { name: 'close gRPC channels and SMTP', run: () => (clients.close(), sender.close()) },
    {
      name: 'close redis',
      run: async () => void (await Promise.all([closeRedis(redis), closeRedis(limitRedis)])),
    },
    { name: 'flush traces', run: stopTelemetry },
  ]);
}

main().catch((err: unknown) =>
  exitOnStartupFailure(createLogger({ service: 'console', level: 'info' }), err),
);

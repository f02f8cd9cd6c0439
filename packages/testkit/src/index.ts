// @brand/testkit: the integration-test harness. Explicit named exports only.
export {
  createAdminClient,
  type AdminClient,
  type ListRecordsInput,
  type PageOfRecords,
} from './adminClient';
export { startChangeFlow, type ChangeFlow } from './changeFlow';
export {
  createConsoleClient,
  signTestAssertion,
  type ActingMember,
  type ConsoleClient,
} from './consoleClient';
export { runConsoleSettingsTests } from './consoleSettingsSuite';
export { checkGrpcHealth, type HealthStatus } from './grpcHealth';
export { listeningSockets, type ListeningSocket } from './listeningSockets';
export { makeBrandWithKey, type BrandWithKey } from './makeBrandWithKey';
export { makePendingSubmissions, makeRecords } from './makeRecords';
export { GATEWAY_MAIN, PLANS_MAIN, RECORDS_MAIN, REPO_ROOT, WEBHOOKS_MAIN } from './paths';
export {
  environmentValue,
  resourceValue,
  roleValue,
  tierValue,
  type EnvironmentName,
  type RoleName,
  type TierName,
} from './protoEnums';
export { pageRecords } from './pageRecords';
export { preparedStatements, type PreparedStatement } from './preparedStatements';
export { planBody, planInputMessage } from './planFixtures';
export { createPlansClient, type PlansClient } from './plansClient';
export { randomHex } from './random';
export { headerOf, sendRaw, type RawAnswer } from './rawExchange';
export { RECORD_FACTORIES, type RecordTypes, type RowContext } from './recordFactories';
export { freeRedisPrefixKeys, uniqueRedisPrefix } from './redisKeys';
export {
  spawnService,
  stopAllServices,
  type ServiceProcess,
  type SpawnServiceOptions,
} from './serviceProcess';
export {
  startGateway,
  startPlans,
  startRecords,
  startWebhooks,
  TEST_ADMIN_TOKEN,
  TEST_ASSERTION_KEYS,
  TEST_CONSOLE_TOKEN,
  TEST_CURSOR_SECRET,
  TEST_INTERNAL_TOKEN,
  TEST_WEBHOOK_SECRET_KEY,
  type GatewayProcess,
  type PlansProcess,
  type RecordsProcess,
  type WebhooksProcess,
} from './services';
export { startStack, type Stack, type StackOptions } from './stack';
export { tcpProxy, type TcpProxy } from './tcpProxy';
export { createEmptyDatabase, createTestDatabase, type TestDatabase } from './testDatabase';
export { adminDatabaseUrl, testRedisUrl } from './testEnv';
export { API_TIMESTAMP, formatMicros, newestFirst, parseMicros } from './timestamps';
export {
  LOCK_QUEUE_SERVICE_ENV,
  outcomeOf,
  queueBehindRowLock,
  twoChangesAtOnce,
  type Outcome,
} from './rowLockQueue';
export { brandWithOwners } from './brandWithOwners';
export { waitFor } from './waitFor';
export {
  createEventProducer,
  createTopic,
  deleteTopic,
  makeBusinessEvent,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  type EventProducer,
} from './businessEvents';
export { createTestCa, type TestCa } from './testCa';
export { createWebhooksClient, type WebhooksClient } from './webhooksClient';
export {
  AUTH_FAILURES,
  callOutcome,
  runCallerAuthTests,
  withCallerToken,
  type CallerAuthRpc,
  type CallerLevel,
} from './callerAuthSuite';
export { startRegisteredReceiver, type RegisteredReceiver } from './registeredReceiver';
export { startOwnKafka, type OwnKafka, type SaslSslListener } from './ownKafka';
export { startOwnKafkaCluster, type KafkaNode, type OwnKafkaCluster } from './ownKafkaCluster';
export { startOwnRedis, stopOwnRedises, type OwnRedis } from './ownRedis';
export { freePort } from './freePort';
export { runMigrateScript } from './templateDb';
export { scrapeMetric } from './scrapeMetric';
export { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlpReceiver';
export { startTestIdp, type IdpClient, type IdpUser, type TestIdp } from './testIdp';
export {
  startHostileIssuer,
  type DiscoveryAnswer,
  type HostileIssuer,
  type ReceivedRequest,
} from './hostileIssuer';
export { startTestDns, type TestDns } from './testDns';
export { startTlsPostgres, type TlsPostgres } from './tlsPostgres';
export { postgresBinDir, runPostgresTool } from './postgresTools';
export { startTlsRedis, type TlsRedis } from './tlsRedis';
export { modulesLoadedBy } from './modulesLoaded';

export {
  boolEnv,
  commaListEnv,
  logLevelEnv,
  msEnv,
  optionalEnv,
  portEnv,
  serviceEnvironmentEnv,
} from './envTypes';
export { ConfigError, loadConfig } from './loadConfig';
export {
  CALLER_TOKEN_NAMES,
  callerTokenEnv,
  callerTokensOf,
  PUBLISHED_SECRETS,
  refusePublishedSecrets,
} from './callerTokens';
export { databaseEnv, grpcServiceEnv, processEnv } from './serviceEnv';
export {
  ASSERTION_PUBLIC_KEY_NAMES,
  assertionKeysOf,
  assertionPrivateKeyEnv,
  assertionPublicKeyEnv,
  requireAssertionKeyWithConsoleToken,
} from './consoleEnv';

// @brand/example-relay: verifies signed deliveries and posts a short message to team chat.
// Explicit named exports only.
export { loadRelayConfig, type RelayConfig } from './config';
export { toChatMessage, type ChatMessage } from './message';
export { postToChat, type PostResult } from './postToChat';
export { startRelay, type RelayOptions, type RunningRelay } from './relay';

/**
 * The change versions of (brand, resource) pairs as records publishes them and the gateway
 * reads them (issue 18). records advances a version in the same transaction as any write of
 * a record of that resource (migration 0007) and, after commit, publishes it here; the
 * gateway reads it in its rate-limit round trip and answers a matching If-None-Match with
 * 304 without asking for the page. A missing key means "unknown": the gateway serves the
 * full page, never a 304.
 */

export { CHANGE_VERSION_TTL_SECONDS, changeVersionKey, type ChangeVersion } from './keys';
export { publishChangeVersions, publishInChunks } from './publish';
export { startChangeVersionSweep, type ChangeVersionSweepOptions } from './sweep';

// One egress policy for every request made on a tenant's say-so: webhook receivers, and a
// brand's identity provider with every endpoint its discovery names (docs/internals.md).
export { addressRefusal } from './addressPolicy';
export { BlockedAddressError, notPublic, pinnedLookup } from './pinnedLookup';
export { HTTPS_PORT, outOfRangePort, portRefusal } from './portPolicy';
export {
  bareHost,
  egressUrlRefusal,
  namesLoopback,
  type EgressOptions,
  type EgressRefusal,
} from './urlRules';

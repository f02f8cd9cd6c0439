export { emailAddress } from './emailAddress';
export { actorEmail, actorMemberId, authorize, roleRefusal, type Actor } from './actor';
export {
  MEMBER_ASSERTION_TTL_SECONDS,
  MemberAssertionError,
  parseAssertionPrivateKey,
  parseAssertionPublicKey,
  signMemberAssertion,
  verifyMemberAssertion,
  type MemberClaims,
} from './memberAssertion';
export { MEMBER_ASSERTION_METADATA } from './metadata';
export {
  CONSOLE_ACTIONS,
  CONSOLE_PERMISSIONS,
  roleAllows,
  type ConsoleAction,
} from './permissions';

import { createPrivateKey } from 'node:crypto';
import { AccessServiceClient } from '@brand/proto/access/v1';
import { MemberInvitationServiceClient } from '@brand/proto/access/v1/invitations';
import { ConsolePasskeyServiceClient } from '@brand/proto/access/v1/passkeys';
import { ConsoleSsoServiceClient } from '@brand/proto/access/v1/sso';
import {
  ConsoleSessionServiceClient,
  type BrandMembership,
  type ResolveConsoleSessionResponse,
} from '@brand/proto/access/v1/sessions';
import { UsageServiceClient } from '@brand/proto/access/v1/usage';
import {
  MEMBER_ASSERTION_METADATA,
  signMemberAssertion,
  type MemberClaims,
} from '@brand/shared/console';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import { randomHex } from './random';
import { TEST_ASSERTION_KEYS, TEST_CONSOLE_TOKEN } from './services';

const DEADLINE_MS = 10_000;

/** A member signed in through the console RPCs, acting on one brand. */
export interface ActingMember {
  sessionToken: string;
  resolved: ResolveConsoleSessionResponse;
  assertion: string;
  /** The metadata a console call on this member's behalf carries. */
  metadata: Record<string, string>;
  /** AccessService as the console calls it for this member. */
  access: Caller<AccessServiceClient>;
  /** UsageService (usage, request log) as the console calls it for this member. */
  usage: Caller<UsageServiceClient>;
  /** MemberInvitationService (the brand's invitations) as the console calls it for this member. */
  invitations: Caller<MemberInvitationServiceClient>;
}

/**
 * The records process as the console calls it: the session RPCs with the console token, and
 * helpers that sign a member in (link requested and redeemed) and act for them.
 */
export interface ConsoleClient {
  sessions: Caller<ConsoleSessionServiceClient>;
  /** Passkeys and signing in with one (ConsolePasskeyService), with the console token. */
  passkeys: Caller<ConsolePasskeyServiceClient>;
  /** A brand's single sign-on and signing in with it (ConsoleSsoService), with the token given. */
  sso: Caller<ConsoleSsoServiceClient>;
  /** Invitations and member mails (MemberInvitationService), with the console token alone. */
  invitations: Caller<MemberInvitationServiceClient>;
  /**
   * Claims the due member mails as the console's mail loop would (confirming each) until the
   * invitation's comes; returns its link token. Only for stacks without a console process.
   */
  mintInvitationLink(invitationId: string): Promise<string>;
  /**
   * Requests a link for `email` and claims the due sign-in mails, as the console's mail loop
   * would (confirming every mail it claims), until the one for `email` comes; returns its
   * token. Fails when none is minted (not a member of an eligible brand). Only for stacks
   * without a console process, which would claim the mails first.
   */
  mintLink(email: string, clientKey?: string): Promise<string>;
  /** Mints a link for `email` (mintLink) and redeems it. */
  signIn(email: string): Promise<{ sessionToken: string; brands: BrandMembership[] }>;
  /** Resolves the session for `brandId` and returns callers acting for the member there. */
  actAs(sessionToken: string, brandId: string): Promise<ActingMember>;
  /** AccessService with the console token and the given assertion ('' sends none). */
  accessWith(assertion: string): Caller<AccessServiceClient>;
  close(): void;
}

export function createConsoleClient(
  recordsAddr: string,
  token = TEST_CONSOLE_TOKEN,
): ConsoleClient {
  const sessionClient = connectClient(ConsoleSessionServiceClient, recordsAddr);
  const accessClient = connectClient(AccessServiceClient, recordsAddr, sessionClient);
  const usageClient = connectClient(UsageServiceClient, recordsAddr, sessionClient);
  const sessions = createCaller(sessionClient, { deadlineMs: DEADLINE_MS, token });
  const passkeys = createCaller(
    connectClient(ConsolePasskeyServiceClient, recordsAddr, sessionClient),
    { deadlineMs: DEADLINE_MS, token },
  );
  const sso = createCaller(connectClient(ConsoleSsoServiceClient, recordsAddr, sessionClient), {
    deadlineMs: DEADLINE_MS,
    token,
  });
  const invitationClient = connectClient(MemberInvitationServiceClient, recordsAddr, sessionClient);
  const invitations = createCaller(invitationClient, { deadlineMs: DEADLINE_MS, token });
  async function mintInvitationLink(invitationId: string) {
    for (let round = 0; round < 20; round++) {
      const { mails } = await invitations('claimMemberMails', { limit: 100, lease_ms: 60_000 });
      if (mails.length > 0)
        await invitations('completeMemberMails', { ids: mails.map((m) => m.id) });
      const mine = mails.find((m) => m.invitation?.id === invitationId);
      if (mine) return mine.token;
      if (mails.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no invitation mail came for ${invitationId}`);
  }
  const accessWith = (assertion: string): Caller<AccessServiceClient> =>
    createCaller(accessClient, {
      deadlineMs: DEADLINE_MS,
      token,
      metadata: assertion === '' ? {} : { [MEMBER_ASSERTION_METADATA]: assertion },
    });
  async function mintLink(email: string, clientKey = `test-client-${randomHex(4)}`) {
    await sessions('requestSignInLink', { email, client_key: clientKey });
    // Claims drop strangers' requests and skip addresses mailed within the spacing: a few
    // rounds settle it.
    for (let round = 0; round < 20; round++) {
      const { mails } = await sessions('claimSignInMails', { max_mails: 100 });
      if (mails.length > 0) {
        await sessions('completeSignInMails', { claim_ids: mails.map((m) => m.claim_id) });
      }
      const mine = mails.find((m) => m.email === email);
      // No token: every brand of the address requires its single sign-on (the mail says so).
      if (mine?.token === '')
        throw new Error(`${email} was mailed no link: its brands require SSO`);
      if (mine) return mine.token;
      if (mails.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no sign-in link was minted for ${email}`);
  }

  return {
    sessions,
    passkeys,
    sso,
    invitations,
    mintInvitationLink,
    accessWith,
    mintLink,
    async signIn(email) {
      const opened = await sessions('redeemSignInLink', {
        token: await mintLink(email),
        client: { user_agent: 'testkit consoleClient', address: '127.0.0.1' },
      });
      return { sessionToken: opened.session_token, brands: opened.brands };
    },
    async actAs(sessionToken, brandId) {
      const resolved = await sessions('resolveConsoleSession', {
        session_token: sessionToken,
        brand_id: brandId,
      });
      const assertion = resolved.member_assertion;
      return {
        sessionToken,
        resolved,
        assertion,
        metadata: { [MEMBER_ASSERTION_METADATA]: assertion },
        access: accessWith(assertion),
        usage: createCaller(usageClient, {
          deadlineMs: DEADLINE_MS,
          token,
          metadata: { [MEMBER_ASSERTION_METADATA]: assertion },
        }),
        invitations: createCaller(invitationClient, {
          deadlineMs: DEADLINE_MS,
          token,
          metadata: { [MEMBER_ASSERTION_METADATA]: assertion },
        }),
      };
    },
    close: () => sessionClient.close(),
  };
}

/**
 * An assertion signed with the test stack's key for any claims, as records would sign it:
 * for tests of the verifying side (webhooks, plans) and of forged or stale assertions.
 */
export function signTestAssertion(
  member: Omit<MemberClaims, 'iat' | 'exp'>,
  opts: { nowMs?: number; privateKeyPem?: string } = {},
): string {
  const key = createPrivateKey(opts.privateKeyPem ?? TEST_ASSERTION_KEYS.privateKeyPem);
  return signMemberAssertion(key, member, opts.nowMs).assertion;
}

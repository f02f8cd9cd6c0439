import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { refuseUnlessOneLine } from '@brand/shared/text';
import { withTransaction } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { SQLSTATE, sqlState } from '@brand/shared/db';
import type { SessionDeps } from '../sessions/sessionDeps';
import { assertAddressProof } from '../sessions/sessionScope';
import { liveSession } from '../sessions/sessionService';
import { registrationAnswerOf, signedChallengeOf } from './ceremonyAnswer';
import {
  CHALLENGE_TTL_MS,
  deleteExpiredChallenges,
  insertChallenge,
  takeChallenge,
} from './challengeRepo';
import { insertAddressMail } from '../memberMails/memberMailRepo';
import { recordPasskeyChange } from './passkeyActivity';
import {
  deletePasskeyOf,
  insertPasskey,
  lockPasskeysOf,
  selectPasskeysOf,
  type PasskeyRow,
} from './passkeyRepo';
import { relyingPartyOf } from './relyingParty';
import { webauthn } from './webauthn';

const PASSKEY_ID = /^pk_[A-Za-z0-9]{1,64}$/;

/** The name people give a passkey: one line they will recognise ("Work laptop"). */
const PasskeyName = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Give the passkey a name, such as “Work laptop”.')
    .max(60, 'A passkey name is at most 60 characters.')
    .superRefine(refuseUnlessOneLine((why) => `A passkey name ${why}.`)),
});

export const invalidPasskey = (): AppError =>
  new AppError(
    'invalid_passkey',
    'The passkey could not be verified. Try again; if it keeps failing, sign in with an emailed link.',
  );

/** A session opened by an emailed link may add the address's first passkey only. */
function assertLinkMayAdd(session: { sign_in_method: string }, passkeys: number): void {
  if (passkeys > 0 && session.sign_in_method === 'link') {
    throw new AppError(
      'passkey_session_required',
      'You already have a passkey: sign in with it to add another. A session opened by an emailed link may add the first passkey only.',
    );
  }
}

/**
 * Starts adding a passkey: options for navigator.credentials.create, the challenge stored for
 * this session. A passkey is a way into every brand of the address, so only a session that
 * proves the address may add one: never one opened by a brand's single sign-on, whose provider
 * speaks for that brand alone (issue 42: another brand's owner could otherwise add their own
 * passkey to a member's address and open the member's brands). A session opened by an emailed
 * link may add the address's first passkey only: otherwise whoever reads the member's mail could
 * add their own passkey to an address that is already protected by one, and get past a brand
 * that requires passkeys.
 */
export async function beginRegistration(
  deps: SessionDeps,
  input: { sessionToken: string; origin: string },
): Promise<string> {
  const session = await liveSession(deps, input.sessionToken);
  assertAddressProof(session, 'Adding a passkey');
  const rp = relyingPartyOf(input.origin);
  const existing = await selectPasskeysOf(deps.pool, session.email);
  assertLinkMayAdd(session, existing.length);
  const userHandle = existing[0]?.user_handle ?? randomBytes(16).toString('base64url');
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: 'Brand Records Developers',
    rpID: rp.rpID,
    userName: session.email,
    userID: new Uint8Array(Buffer.from(userHandle, 'base64url')),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    timeout: CHALLENGE_TTL_MS,
  });
  await deleteExpiredChallenges(deps.pool);
  await insertChallenge(deps.pool, {
    challenge: options.challenge,
    purpose: 'register',
    sessionId: session.id,
    userHandle,
  });
  return JSON.stringify(options);
}

/**
 * Verifies the browser's answer against this session's challenge (taken, so spent, first) and
 * stores the passkey: its public key, counter and transports, never anything secret.
 */
export async function finishRegistration(
  deps: SessionDeps,
  input: { sessionToken: string; origin: string; name: string; responseJson: string },
): Promise<PasskeyRow> {
  const session = await liveSession(deps, input.sessionToken);
  assertAddressProof(session, 'Adding a passkey');
  const rp = relyingPartyOf(input.origin);
  const { name } = parseOrThrow(PasskeyName, { name: input.name });
  const answer = registrationAnswerOf(input.responseJson);
  const challenge = signedChallengeOf(answer.response.clientDataJSON);
  const taken =
    challenge === ''
      ? undefined
      : await takeChallenge(deps.pool, { challenge, purpose: 'register', sessionId: session.id });
  if (!taken) throw invalidPasskey();

  const { verifyRegistrationResponse } = await webauthn();
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: answer,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: true,
    });
  } catch (err) {
    deps.log.info({ err }, 'passkey registration did not verify');
    throw invalidPasskey();
  }
  if (!verified.verified) throw invalidPasskey();
  const { credential } = verified.registrationInfo;
  try {
    return await withTransaction(deps.pool, async (db) => {
      // again at the finish: a challenge asked for while the address had no passkey must not
      // add a second one once the member added theirs (nor two answered at once, both first)
      await lockPasskeysOf(db, session.email);
      assertLinkMayAdd(session, (await selectPasskeysOf(db, session.email)).length);
      const row = await insertPasskey(db, {
        id: newId('passkey'),
        email: session.email,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports ?? [],
        userHandle: taken.userHandle,
        name,
      });
      await recordPasskeyChange(db, session.email, {
        action: 'member.passkey_added',
        passkeyName: name,
      });
      // The address is told: a passkey opens every brand of it, and one added by whoever read
      // the member's mail (an emailed link may add the first) must not go unseen (a review).
      await insertAddressMail(db, {
        kind: 'passkey_added',
        email: session.email,
        details: { passkeyName: name, sessionMethod: session.sign_in_method },
      });
      return row;
    });
  } catch (err) {
    if (sqlState(err) === SQLSTATE.uniqueViolation) {
      throw new AppError('already_exists', 'This passkey is registered already.');
    }
    throw err;
  }
}

/** The address's passkeys, for a session that proves the address (their names are its own). */
export async function listPasskeys(
  deps: SessionDeps,
  input: { sessionToken: string },
): Promise<PasskeyRow[]> {
  const session = await liveSession(deps, input.sessionToken);
  assertAddressProof(session, 'Seeing your passkeys');
  return selectPasskeysOf(deps.pool, session.email);
}

/**
 * Removes one of the address's passkeys; another address's is not found, like an unknown one.
 * Only from a passkey session (a brand's single sign-on never proves the address): a session
 * opened by an emailed link could otherwise remove the member's passkeys and then add "the
 * first" one of its own, so that whoever reads the member's mail gets past a brand that requires
 * a passkey (a hostile review, 2026-11-29).
 */
export async function removePasskey(
  deps: SessionDeps,
  input: { sessionToken: string; passkeyId: string },
): Promise<void> {
  const session = await liveSession(deps, input.sessionToken);
  assertAddressProof(session, 'Removing a passkey');
  const notFound = () => new AppError('not_found', `No passkey ${input.passkeyId}.`);
  if (!PASSKEY_ID.test(input.passkeyId)) throw notFound();
  await withTransaction(deps.pool, async (db) => {
    await lockPasskeysOf(db, session.email);
    const name = (await selectPasskeysOf(db, session.email)).find(
      (p) => p.id === input.passkeyId,
    )?.name;
    if (name === undefined) throw notFound();
    if (session.sign_in_method === 'link') {
      throw new AppError(
        'passkey_session_required',
        'Sign in with a passkey to remove one. A session opened by an emailed link may not remove passkeys: whoever reads your mail could otherwise swap yours for theirs.',
      );
    }
    if (!(await deletePasskeyOf(db, session.email, input.passkeyId))) throw notFound();
    await recordPasskeyChange(db, session.email, {
      action: 'member.passkey_removed',
      passkeyName: name,
    });
  });
}

import { withTransaction } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { eligibleMemberships } from '../sessions/eligibility';
import { afterSessionOpened, openSession, type OpenedSession } from '../sessions/openSession';
import type { SessionDeps } from '../sessions/sessionDeps';
import type { SignInClient } from '../sessions/signInClient';
import { authenticationAnswerOf, signedChallengeOf } from './ceremonyAnswer';
import {
  CHALLENGE_TTL_MS,
  deleteExpiredChallenges,
  insertChallenge,
  takeChallenge,
} from './challengeRepo';
import { invalidPasskey } from './passkeyService';
import { advanceCounter, selectPasskeyByCredential } from './passkeyRepo';
import { relyingPartyOf } from './relyingParty';
import { webauthn } from './webauthn';

/**
 * Starts a passkey sign-in: options for navigator.credentials.get with no credentials listed
 * (the browser offers the discoverable passkeys it holds for the console), the challenge stored
 * for nobody yet. Rate limited per client, since anyone may ask.
 */
export async function beginPasskeySignIn(
  deps: SessionDeps,
  input: { origin: string; clientKey: string },
): Promise<string> {
  const rp = relyingPartyOf(input.origin);
  if (input.clientKey.length < 1 || input.clientKey.length > 128) {
    throw new AppError('validation_failed', 'client_key must be 1 to 128 characters.');
  }
  await deps.rateLimit.takePasskeyChallenge(input.clientKey);
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: rp.rpID,
    userVerification: 'required',
    timeout: CHALLENGE_TTL_MS,
  });
  await deleteExpiredChallenges(deps.pool);
  await insertChallenge(deps.pool, {
    challenge: options.challenge,
    purpose: 'sign_in',
    sessionId: '',
    userHandle: '',
  });
  return JSON.stringify(options);
}

/**
 * Verifies a passkey answer and opens a session. The challenge is taken (spent) before the
 * passkey is even looked up; then the signature over the console's origin and RP ID, user
 * verification, and a counter that grew (stored by compare and set, so two racing answers
 * cannot both pass). One refusal, invalid_passkey, for every failure.
 */
export async function finishPasskeySignIn(
  deps: SessionDeps,
  input: { origin: string; responseJson: string; client: SignInClient },
): Promise<OpenedSession> {
  const rp = relyingPartyOf(input.origin);
  const answer = authenticationAnswerOf(input.responseJson);
  const challenge = signedChallengeOf(answer.response.clientDataJSON);
  const taken =
    challenge === ''
      ? undefined
      : await takeChallenge(deps.pool, { challenge, purpose: 'sign_in', sessionId: '' });
  if (!taken) throw invalidPasskey();

  const passkey = await selectPasskeyByCredential(deps.pool, answer.id);
  if (!passkey) throw invalidPasskey();
  // A discoverable credential names its user: it must be the one this passkey was made for.
  const handle = answer.response.userHandle;
  if (handle !== undefined && handle !== passkey.user_handle) throw invalidPasskey();

  const { verifyAuthenticationResponse } = await webauthn();
  let newCounter: number;
  try {
    const verified = await verifyAuthenticationResponse({
      response: answer,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: true,
    });
    if (!verified.verified) throw invalidPasskey();
    newCounter = verified.authenticationInfo.newCounter;
  } catch (err) {
    deps.log.info({ err, passkey_id: passkey.id }, 'passkey sign-in did not verify');
    throw invalidPasskey();
  }

  const opened = await withTransaction(deps.pool, async (db) => {
    if (!(await advanceCounter(db, { id: passkey.id, from: passkey.counter, to: newCounter }))) {
      throw invalidPasskey();
    }
    const brands = await eligibleMemberships(db, passkey.email);
    if (brands.length === 0) throw invalidPasskey();
    return openSession(db, deps, {
      email: passkey.email,
      brands,
      method: 'passkey',
      client: input.client,
    });
  });
  afterSessionOpened(deps, opened);
  return opened;
}

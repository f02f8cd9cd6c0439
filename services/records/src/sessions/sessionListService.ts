import { withTransaction } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import type { SessionDeps } from './sessionDeps';
import { reachOf } from './sessionScope';
import { liveSession, recordSignOut } from './sessionService';
import {
  endSessionOf,
  endSessionsOfExcept,
  selectLiveSessionsOf,
  type SessionListRow,
} from './sessionRepo';

const SESSION_ID = /^ses_[A-Za-z0-9]{1,64}$/;

/**
 * "Your sessions": what a signed-in person may see and end of their own sessions. Everything
 * is scoped by the presented session's reach (sessionScope.ts): its address, or, for a session
 * opened by a brand's single sign-on, the sessions that brand's single sign-on opened for the
 * address. A session beyond it is simply not found (one answer whether it exists or not).
 */
export async function listSessions(
  deps: SessionDeps,
  input: { sessionToken: string },
): Promise<{ currentId: string; sessions: SessionListRow[] }> {
  const session = await liveSession(deps, input.sessionToken);
  return {
    currentId: session.id,
    sessions: await selectLiveSessionsOf(deps.pool, reachOf(session), deps.idleMs),
  };
}

/** Ends one session of the address; says whether it was the presented one. */
export async function endOneSession(
  deps: SessionDeps,
  input: { sessionToken: string; sessionId: string },
): Promise<{ endedCurrent: boolean }> {
  const session = await liveSession(deps, input.sessionToken);
  const notFound = () => new AppError('not_found', `No session ${input.sessionId}.`);
  if (!SESSION_ID.test(input.sessionId)) throw notFound();
  await withTransaction(deps.pool, async (db) => {
    const ended = await endSessionOf(db, reachOf(session), input.sessionId);
    if (ended.ended === 0) throw notFound();
    await recordSignOut(db, { email: session.email, brandIds: ended.brandIds });
  });
  return { endedCurrent: input.sessionId === session.id };
}

/** Ends every session within the presented one's reach but itself; returns how many ended. */
export async function endOtherSessions(
  deps: SessionDeps,
  input: { sessionToken: string },
): Promise<number> {
  const session = await liveSession(deps, input.sessionToken);
  return withTransaction(deps.pool, async (db) => {
    const ended = await endSessionsOfExcept(db, reachOf(session), session.id);
    await recordSignOut(db, { email: session.email, brandIds: ended.brandIds });
    return ended.ended;
  });
}

import { ServiceCallError } from '../clients/memberCaller';

/**
 * A settings save is decided on values read for the request (forms/shownFields.ts: what the
 * person changed, and whether someone else changed it too), then written in a second call. What
 * another owner, brandctl or the API committed between the two was replaced unseen (a receiver's
 * events, a key's allowed networks, a provisioning setting; a review of lost updates,
 * 2026-12-01). So the write names what it was decided on (UpdateReceiver's, UpdateAuditStream's
 * and SetSsoConnection's if_updated_at, SetKeyNetworks' if_allowed_networks,
 * SetProvisioningSettings' if_settings), and the service refuses it with precondition_failed
 * when the row changed since. Then this reads again and decides once more: another owner's change
 * of a field the person left alone is kept and theirs written beside it; one of a field they
 * changed too is the usual conflict (409, edit_conflict). Refused again (a third change within that
 * moment), it reads once more and ends as `changed`: the route answers 409, edit_conflict, with
 * the form as it is then.
 */
export async function decideOntoRead<R, D extends { conflicts: readonly string[] }>(steps: {
  /** The values read for this request. */
  read: R;
  readAgain: () => Promise<R>;
  decide: (read: R) => D;
  /** Writes what was decided, naming `read` as its precondition (or writes nothing). */
  write: (read: R, decided: D) => Promise<void>;
}): Promise<{ outcome: 'written' | 'conflict' | 'changed'; read: R; decided: D }> {
  let read = steps.read;
  for (let attempt = 1; ; attempt++) {
    const decided = steps.decide(read);
    if (decided.conflicts.length > 0) return { outcome: 'conflict', read, decided };
    try {
      await steps.write(read, decided);
      return { outcome: 'written', read, decided };
    } catch (err) {
      if (!(err instanceof ServiceCallError && err.code === 'precondition_failed')) throw err;
      read = await steps.readAgain();
      if (attempt === 2) return { outcome: 'changed', read, decided: steps.decide(read) };
    }
  }
}

/**
 * The refusal's sentence when the save was refused twice over changes made while it was being
 * saved (`decideOntoRead`'s `changed`) and no field the person changed was among them.
 */
export function changedWhileSavingMessage(what: string): string {
  return `Not saved: the ${what} changed again while your save was being written. The form keeps your changes, with everything else as it is now: check it and save again.`;
}

import { isAppError } from '@brand/shared/errors';
import { ConsoleHttpError } from '../../http/consoleHttpError';

/**
 * What the Activity form says for each field the shared reading refuses, named by the form's
 * own labels ("Who", "What", "About", "From", "Before"): the shared parser speaks to API and
 * CLI callers ("actor: must be a member id ..."), a field path a person on the page never
 * typed. Worded as the delivery logs word theirs (receivers/deliveryLogFilter.ts).
 */
const WORDS: Readonly<Record<string, string>> = {
  actor: 'Enter "Who" as an email address, a member id (mem_...) or "operator".',
  action: 'Choose "What" from the list: an action such as key.created, or a kind such as key.',
  subject_id: 'Enter "About" as an id, for example key_..., rcv_... or mem_...',
  since: 'Enter "From" as a UTC time, for example 2026-11-20 14:00, or a day.',
  until: 'Enter "Before" as a UTC time, for example 2026-11-20 14:00, or a day.',
  cursor: 'That page link is not one of this list: start again from the newest.',
};
const ORDER = '"Before" must be later than "From".';

/**
 * Runs the shared reading of the Activity filter; its refusal becomes a 400 in the page's words
 * (same code: validation_failed, invalid_cursor). A refusal of a field not named above keeps
 * the shared sentence rather than none.
 */
export function inPlainWords<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!isAppError(err)) throw err;
    const issue = err.details?.[0];
    const field = issue?.field ?? '';
    const after = field === 'until' && issue?.message.startsWith('must be after') === true;
    const words = after ? ORDER : Object.hasOwn(WORDS, field) ? WORDS[field] : undefined;
    throw new ConsoleHttpError(400, err.code, words ?? err.message);
  }
}

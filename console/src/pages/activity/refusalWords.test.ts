import { decodeActivityCursor, parseActivityFilters } from '@brand/shared/activity';
import { ConsoleHttpError } from '../../http/consoleHttpError';
import { inPlainWords } from './refusalWords';

const none = { actor: '', action: '', subject_id: '', since: '', until: '' };

/** The sentence the page shows for a filter as typed. */
function refusalOf(typed: Partial<typeof none>, cursor = ''): ConsoleHttpError {
  try {
    inPlainWords(() => {
      const listing = { brandId: 'br_1', filters: parseActivityFilters({ ...none, ...typed }) };
      if (cursor !== '') decodeActivityCursor(listing, cursor);
    });
  } catch (err) {
    if (err instanceof ConsoleHttpError) return err;
    throw err;
  }
  throw new Error('not refused');
}

// The Activity page showed the shared parser's field path ("actor: must be a member id ...")
// where the delivery logs say what to type in the words of the form's labels.
describe('the Activity filter refused in plain words', () => {
  it.each([
    [{ actor: 'owner' }, 'Enter "Who" as an email address, a member id (mem_...) or "operator".'],
    [{ action: 'DROP TABLE' }, 'Choose "What" from the list: an action such as key.created'],
    [{ subject_id: "key_1' or 1=1" }, 'Enter "About" as an id, for example key_...'],
    [{ since: 'yesterday' }, 'Enter "From" as a UTC time, for example 2026-11-20 14:00'],
    [{ until: 'soon' }, 'Enter "Before" as a UTC time, for example 2026-11-20 14:00'],
    [{ since: '2026-11-02', until: '2026-11-01' }, '"Before" must be later than "From".'],
  ])('%j: %s', (typed, words) => {
    const refused = refusalOf(typed);
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('validation_failed');
    expect(refused.message).toContain(words);
    expect(refused.message).not.toMatch(/^[a-z_]+: /);
  });

  it('a page link of another listing says so, as invalid_cursor', () => {
    const refused = refusalOf({}, 'bm90LWEtY3Vyc29y');
    expect(refused.code).toBe('invalid_cursor');
    expect(refused.message).toBe(
      'That page link is not one of this list: start again from the newest.',
    );
  });

  it('anything but a refusal is thrown on as it is', () => {
    const broken = new Error('database away');
    expect(() =>
      inPlainWords(() => {
        throw broken;
      }),
    ).toThrow(broken);
  });
});

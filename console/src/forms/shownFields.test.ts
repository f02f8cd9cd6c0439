import {
  changedFields,
  conflictMessage,
  joinSet,
  keptForm,
  shownName,
  splitSet,
} from './shownFields';

type Receiver = { url: string; label: string; events: string[] };
const shownBody = (shown: Receiver): Record<string, string> => ({
  [shownName('url')]: shown.url,
  [shownName('label')]: shown.label,
  [shownName('events')]: joinSet(shown.events),
});

const page: Receiver = { url: 'https://a.example/hook', label: 'A', events: ['plan.created'] };

describe('changedFields', () => {
  it('sends only the fields the person changed', () => {
    const posted = { ...page, label: 'B' };
    expect(changedFields(shownBody(page), posted, page)).toEqual({
      changes: { label: 'B' },
      conflicts: [],
    });
  });

  it('keeps another owner’s change to a field the person left alone', () => {
    const now = { ...page, url: 'https://moved.example/hook' };
    const { changes, conflicts } = changedFields(shownBody(page), { ...page, label: 'B' }, now);
    expect(changes).toEqual({ label: 'B' });
    expect(conflicts).toEqual([]);
  });

  it('refuses a field both changed, to different values', () => {
    const now = { ...page, label: 'Theirs' };
    expect(changedFields(shownBody(page), { ...page, label: 'Mine' }, now)).toEqual({
      changes: {},
      conflicts: ['label'],
    });
  });

  it('is no conflict when both changed a field to the same value', () => {
    const now = { ...page, label: 'Same' };
    expect(changedFields(shownBody(page), { ...page, label: 'Same' }, now).conflicts).toEqual([]);
  });

  it('compares sets of names regardless of order', () => {
    const shown = { ...page, events: ['record.created', 'plan.created'] };
    const posted = { ...page, events: ['plan.created', 'record.created'] };
    expect(changedFields(shownBody(shown), posted, shown)).toEqual({ changes: {}, conflicts: [] });
    const now = { ...page, events: ['record.deleted'] };
    const added = { ...page, events: ['plan.created', 'record.created', 'record.updated'] };
    expect(changedFields(shownBody(shown), added, now).conflicts).toEqual(['events']);
  });

  it('sends every field of a form posted without shown_* (a page served before the rule)', () => {
    const posted = { ...page, label: 'B' };
    expect(changedFields({}, posted, page).changes).toEqual(posted);
  });
});

describe('keptForm', () => {
  it('keeps what the person changed, refused or not, and shows the rest as it is now', () => {
    // another owner changed the label and the events; the person changed the label and the URL
    const now = { ...page, label: 'Theirs', events: ['record.deleted'] };
    const posted = { ...page, label: 'Mine', url: 'https://mine.example/hook' };
    const decided = changedFields(shownBody(page), posted, now);
    expect(decided.conflicts).toEqual(['label']);
    expect(keptForm(posted, now, decided)).toEqual({
      url: 'https://mine.example/hook',
      label: 'Mine',
      events: ['record.deleted'],
    });
  });
});

describe('sets in one hidden field', () => {
  it('round-trips, sorted, and an empty set is an empty value', () => {
    expect(splitSet(joinSet(['b', 'a']))).toEqual(['a', 'b']);
    expect(joinSet([])).toBe('');
    expect(splitSet('')).toEqual([]);
  });
});

describe('conflictMessage', () => {
  it('names each field and its value now', () => {
    expect(conflictMessage([{ label: 'URL', now: 'https://x.example' }])).toBe(
      'Not saved: someone else changed the URL (now “https://x.example”) since you opened this page. The form keeps your changes, with everything else as it is now: check it and save again.',
    );
    expect(
      conflictMessage([
        { label: 'label', now: 'L' },
        { label: 'events', now: ['record.created', 'plan.created'] },
      ]),
    ).toMatch(
      /^Not saved: someone else changed the label \(now “L”\), events \(now “plan.created, record.created”\) since/,
    );
  });
});

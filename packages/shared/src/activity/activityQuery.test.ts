import { parseActivityFilters } from './activityQuery';
import type { ActivityFilterFields } from './activityTypes';

const none: ActivityFilterFields = { actor: '', action: '', subject_id: '', since: '', until: '' };

describe('parseActivityFilters', () => {
  it('reads each filter', () => {
    expect(parseActivityFilters(none)).toEqual({});
    expect(parseActivityFilters({ ...none, actor: 'mem_abc' })).toEqual({
      actorMemberId: 'mem_abc',
    });
    expect(parseActivityFilters({ ...none, actor: 'Ann@Example.com' })).toEqual({
      actorEmail: 'ann@example.com',
    });
    expect(parseActivityFilters({ ...none, actor: 'operator' })).toEqual({
      actorEmail: 'operator',
    });
    expect(parseActivityFilters({ ...none, action: 'key.created' })).toEqual({
      action: 'key.created',
    });
    expect(parseActivityFilters({ ...none, action: 'key.' })).toEqual({ actionPrefix: 'key.' });
    expect(parseActivityFilters({ ...none, subject_id: 'rcv_1' })).toEqual({ subjectId: 'rcv_1' });
    expect(
      parseActivityFilters({ ...none, since: '2026-11-01', until: '2026-11-02T00:00:00Z' }),
    ).toEqual({ since: new Date('2026-11-01T00:00:00Z'), until: new Date('2026-11-02T00:00:00Z') });
  });

  it.each([
    [{ actor: 'not an email' }, /^actor: /],
    [{ action: 'DROP TABLE' }, /^action: /],
    [{ action: 'key.created.x' }, /^action: /],
    [{ subject_id: "key_1' or 1=1" }, /^subject_id: /],
    [{ since: 'last week' }, /^since: /],
    [{ since: '2026-11-02', until: '2026-11-01' }, /^until: must be after since/],
  ])('%j is validation_failed', (bad, message) => {
    expect(() => parseActivityFilters({ ...none, ...bad })).toThrow(message);
  });
});

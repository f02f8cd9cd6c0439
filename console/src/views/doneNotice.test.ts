import { doneNoticeOf } from './doneNotice';

const TABLE = { ended: 'That session is signed out.' };

describe('doneNoticeOf', () => {
  it("is the table's sentence for one of its own keys", () => {
    expect(doneNoticeOf(TABLE, 'ended')).toBe('That session is signed out.');
  });

  // `NOTICES[req.query.done]` read Object.prototype: ?done=constructor drew an empty notice box
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '', 'unknown'])(
    '?done=%s is no notice',
    (done) => {
      expect(doneNoticeOf(TABLE, done)).toBeUndefined();
    },
  );

  it('a repeated or missing ?done= is no notice', () => {
    expect(doneNoticeOf(TABLE, ['ended', 'ended'])).toBeUndefined();
    expect(doneNoticeOf(TABLE, undefined)).toBeUndefined();
  });
});

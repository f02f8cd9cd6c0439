/**
 * The one writer of receiver notices: the rows the console's mailer sends to a brand's owners
 * (noticeRepo.ts claims and acknowledges them). A notice is written inside the statement that
 * changes the receiver (an alert raised, a recovery, a disable), so the notice and the change
 * commit together; each such statement embeds this insert with its own row source.
 */
export type NoticeKind = 'failing' | 'recovered' | 'disabled';

/** The SQL expression for each column, read from the statement's row source. */
export interface NoticeColumns {
  id: string;
  brandId: string;
  receiverId: string;
  label: string;
  url: string;
  /** When the receiver was disabled; only a `disabled` notice has one. */
  disabledAt?: string;
  failingSince: string;
  reason: string;
  lastError: string;
  failures: string;
}

/** `insert into receiver_notices ... select ... from <from>` for one kind of notice. */
export function insertNotice(kind: NoticeKind, c: NoticeColumns, from: string): string {
  return `insert into receiver_notices (id, brand_id, receiver_id, receiver_label, receiver_url,
       disabled_at, failing_since, reason, last_error, kind, failures)
     select ${c.id}, ${c.brandId}, ${c.receiverId}, ${c.label}, ${c.url}, ${c.disabledAt ?? 'null'},
       ${c.failingSince}, ${c.reason}, ${c.lastError}, '${kind}', ${c.failures}
     from ${from}`;
}

import type { ActivityEntry } from '@brand/proto/activity/v1';

/**
 * The types every part of the activity log shares (the filters, the repository, the cursor).
 * One module that imports nothing of the log's own, so activityQuery and activityRepo no longer
 * import each other.
 */

/** The filters of an activity listing, as the wire carries them: empty means any. */
export interface ActivityFilterFields {
  actor: string;
  action: string;
  subject_id: string;
  since: string;
  until: string;
}

/** Filters checked and ready for SQL. */
export interface ActivityFilters {
  actorMemberId?: string;
  actorEmail?: string;
  action?: string;
  actionPrefix?: string;
  subjectId?: string;
  since?: Date;
  until?: Date;
}

/** Where a page ended: the exact created_at (microseconds) and id of its last row. */
export interface ActivityPosition {
  created_at: string;
  id: string;
}

/** What a cursor is bound to: one brand's log read with one set of filters. */
export interface ActivityListing {
  brandId: string;
  filters: ActivityFilters;
}

/** A row as the ListActivity RPCs answer it. */
export type ActivityRow = ActivityEntry;

/** Where a request came from, as the console (or the CLI) saw it; empty when unknown. */
export interface ActivityOrigin {
  clientAddress: string;
  userAgent: string;
}

/** An entry to write: what happened, to what, and who did it. */
export interface NewActivity {
  brandId: string;
  action: string;
  /** The member who acted; empty for an operator. */
  actorMemberId: string;
  /** The member's email, or "operator". */
  actorEmail: string;
  subjectId: string;
  /** For people; never a secret. */
  summary: string;
  /**
   * Where the request came from; by default the origin of the gRPC call being served
   * (grpcClient/clientOrigin.ts), so every row written while serving the console carries it.
   */
  origin?: ActivityOrigin;
}

export { insertActivity } from './activityRepo';
export { decodeActivityCursor, encodeActivityCursor } from './activityCursor';
export { parseActivityFilters } from './activityQuery';
export type {
  ActivityFilterFields,
  ActivityFilters,
  ActivityListing,
  ActivityOrigin,
  NewActivity,
} from './activityTypes';
export { auditorNamed, auditorOf, type Auditor } from './auditor';
export { listActivity } from './listActivity';
export { mergeActivity, mergedActivityPage, type ActivitySource } from './mergedActivity';

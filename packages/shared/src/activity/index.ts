export { insertActivity, type NewActivity } from './activityRepo';
export {
  decodeActivityCursor,
  encodeActivityCursor,
  parseActivityFilters,
  type ActivityFilterFields,
} from './activityQuery';
export { auditorNamed, auditorOf, type Auditor } from './auditor';
export { listActivity } from './listActivity';
export { mergeActivity, mergedActivityPage, type ActivitySource } from './mergedActivity';

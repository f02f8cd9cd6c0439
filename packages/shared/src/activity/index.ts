export { insertActivity, type NewActivity } from './activityRepo';
export { auditorOf, type Auditor } from './auditor';
export { listActivity } from './listActivity';

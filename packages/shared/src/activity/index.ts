export { insertActivity, type NewActivity } from './activityRepo';
export { listActivity } from './listActivity';

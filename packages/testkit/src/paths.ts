import path from 'node:path';

/**
 * Locations in the checkout. Resolved from this file so they hold for jest (src/) and
 * for jest's globalSetup, which loads this module without moduleNameMapper.
 */
export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const SERVICES_DIR = path.join(REPO_ROOT, 'services');
export const RECORDS_MAIN = path.join(REPO_ROOT, 'services/records/dist/main.js');
export const PLANS_MAIN = path.join(REPO_ROOT, 'services/plans/dist/main.js');
export const GATEWAY_MAIN = path.join(REPO_ROOT, 'gateway/dist/main.js');
export const WEBHOOKS_MAIN = path.join(REPO_ROOT, 'services/webhooks/dist/main.js');

import type { Logger } from '@brand/shared/logger';
import { ServiceCallError } from './memberCaller';

/**
 * A call a page can do without (a panel of the overview, a receiver's health figures):
 * undefined, and a warning logged, when the service cannot answer now; the page then says that
 * part is unavailable instead of failing whole. Anything but a service's answer is thrown.
 */
export async function bestEffort<T>(
  log: Logger,
  what: string,
  call: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof ServiceCallError)) throw err;
    log.warn({ err }, `${what} unavailable`);
    return undefined;
  }
}

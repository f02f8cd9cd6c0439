import type { Logger } from '@brand/shared/logger';
import type { ConsoleClients } from './clients/consoleClients';
import type { ConsoleMetrics } from './observability/metrics';
import type { SubmitOnce } from './forms/submitOnce';
import type { OneTimeReveal } from './reveal/oneTimeReveal';
import type { WrongTokenThrottle } from './scim/wrongTokenThrottle';

/**
 * What the console's pages are handed by the composition root (main.ts). It lives apart from
 * app.ts so the pages, which app.ts registers, never import app.ts back.
 */
export interface ConsoleDeps {
  log: Logger;
  clients: ConsoleClients;
  reveal: OneTimeReveal;
  /** One submission per rendered create form (forms/submitOnce.ts). */
  submitOnce: SubmitOnce;
  metrics: ConsoleMetrics;
  /** CONSOLE_PUBLIC_URL's origin, e.g. "https://console.example.com". */
  publicOrigin: string;
  gatewayUrl: string;
  trustProxy: boolean | number | string[];
  /** Wrong SCIM tokens counted per client address (SCIM_AUTH_FAILURES_PER_ADDRESS). */
  scimWrongTokens: WrongTokenThrottle;
}

import { DEFAULT_RETRY_TUNING, type RetryTuning } from './http/retryPolicy.js';
import { Transport } from './http/transport.js';
import { EventsResource } from './events/eventsResource.js';
import { AuditLogResource } from './auditLog/auditLogResource.js';
import { CampaignPlans } from './plans/campaignPlans.js';
import { RecordsResource } from './records/recordsResource.js';
import { MAX_TIMER_MS, checkNumber, checkTimerMs } from './optionChecks.js';
import { VERSION } from './version.js';

export interface BrandRecordsOptions {
  /**
   * A brand API key (`bk_live_...` / `bk_test_...`). Keep it on servers, never in browser code.
   * Printable ASCII only: a space, a control character (a trailing newline) or a non-ASCII
   * character is a TypeError at construction, whose message never shows the key.
   */
  apiKey: string;
  /** The API's origin, e.g. `https://api.example.com` (a trailing slash is ignored). */
  baseUrl: string;
  /**
   * Time allowed for each attempt, headers and body (default 30000), in ms: above 0 and at most
   * 2,147,483,647 (the longest timer; Node fires a longer one at once).
   */
  timeoutMs?: number;
  /** Retries after the first attempt of a retryable failure (default 2; 0 turns retries off). */
  maxRetries?: number;
  /** The fetch to use (default the global one), e.g. to add a proxy agent or for tests. */
  fetch?: typeof fetch;
  /**
   * Backoff tuning: `baseDelayMs` (500), `maxDelayMs` (8000), `maxRetryAfterSeconds` (60). Each
   * 0 or more, and no delay beyond 2,147,483,647 ms (`maxRetryAfterSeconds` up to 2,147,483).
   */
  retry?: Partial<RetryTuning>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;

function checkOptions(options: BrandRecordsOptions): URL {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('BrandRecords: options are required ({ apiKey, baseUrl }).');
  }
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError('BrandRecords: apiKey is required.');
  }
  checkApiKeyCharacters(options.apiKey);
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new TypeError('BrandRecords: baseUrl must be an absolute http(s) URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError('BrandRecords: baseUrl must be an absolute http(s) URL.');
  }
  const { timeoutMs, maxRetries } = options;
  if (timeoutMs !== undefined) checkTimerMs(timeoutMs, 'timeoutMs', 'BrandRecords', 1);
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw new TypeError('BrandRecords: maxRetries must be a whole number, 0 or more.');
  }
  checkRetryTuning(options.retry);
  return url;
}

/** The key prefixes it is safe to name in a message: they say nothing secret. */
const KEY_PREFIXES = ['bk_live_', 'bk_test_'];

/**
 * The key goes into the Authorization header, so it must be printable ASCII (what a key is).
 * Without this check fetch refuses the header on every call, reported as a lost connection and
 * retried. The message says which kind of character, never the key (its prefix at most).
 */
function checkApiKeyCharacters(apiKey: string): void {
  for (let i = 0; i < apiKey.length; i++) {
    const code = apiKey.charCodeAt(i);
    if (code > 0x20 && code < 0x7f) continue;
    const kind =
      code === 0x20
        ? 'a space'
        : code > 0x7f
          ? 'a non-ASCII character'
          : 'a control character (a line break, tab, NUL or DEL)';
    const prefix = KEY_PREFIXES.find((p) => apiKey.startsWith(p));
    const where = i === apiKey.length - 1 ? 'at its end' : i === 0 ? 'at its start' : 'inside it';
    throw new TypeError(
      `BrandRecords: apiKey${prefix ? ` (${prefix}...)` : ''} contains ${kind} ${where}; a key ` +
        'is printable ASCII, and fetch refuses anything else in an Authorization header (a ' +
        'trailing newline read from a file or an environment variable is the usual cause).',
    );
  }
}

/** Each delay feeds a timer: negative, NaN or beyond the longest timer is refused. */
function checkRetryTuning(retry: Partial<RetryTuning> | undefined): void {
  if (retry === undefined) return;
  if (typeof retry !== 'object' || retry === null) {
    throw new TypeError(
      'BrandRecords: retry must be an object ({ baseDelayMs, maxDelayMs, maxRetryAfterSeconds }).',
    );
  }
  for (const name of ['baseDelayMs', 'maxDelayMs'] as const) {
    if (retry[name] !== undefined) checkTimerMs(retry[name], `retry.${name}`, 'BrandRecords');
  }
  if (retry.maxRetryAfterSeconds !== undefined) {
    const max = Math.floor(MAX_TIMER_MS / 1000);
    checkNumber(retry.maxRetryAfterSeconds, 'retry.maxRetryAfterSeconds', 'BrandRecords', {
      min: 0,
      max,
      what: `a number of seconds from 0 to ${max} (the longest timer)`,
    });
  }
}

/**
 * The Brand Records API client:
 *
 * ```ts
 * const client = new BrandRecords({ apiKey: process.env.BRAND_RECORDS_KEY!, baseUrl: 'https://api.example.com' });
 * for await (const submission of client.submissions.all({ since: '2026-11-01T00:00:00Z' })) { ... }
 * ```
 */
export class BrandRecords {
  readonly campaigns: RecordsResource<'campaigns'>;
  readonly submissions: RecordsResource<'submissions'>;
  readonly payouts: RecordsResource<'payouts'>;
  readonly deposits: RecordsResource<'deposits'>;
  readonly conversions: RecordsResource<'conversions'>;
  readonly links: RecordsResource<'links'>;
  /** Campaign-plan preparation (keys with `campaigns:prepare`). */
  readonly campaignPlans: CampaignPlans;
  /** The brand's business events as a feed: pages, a walk, and a follower. */
  readonly events: EventsResource;
  /** The brand's audit log (keys with `audit:read`): pages and a walk, newest first or after a position. */
  readonly auditLog: AuditLogResource;

  constructor(options: BrandRecordsOptions) {
    const url = checkOptions(options);
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') {
      throw new TypeError(
        'BrandRecords: no global fetch here; pass options.fetch (Node 20+ has one).',
      );
    }
    const transport = new Transport({
      apiKey: options.apiKey,
      baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      // Called as a plain function: some runtimes' fetch refuses any other `this`.
      fetch: (input, init) => fetchImpl(input, init),
      tuning: { ...DEFAULT_RETRY_TUNING, ...options.retry },
      userAgent: `brand-records-client-typescript/${VERSION}`,
    });
    this.campaigns = new RecordsResource(transport, 'campaigns');
    this.submissions = new RecordsResource(transport, 'submissions');
    this.payouts = new RecordsResource(transport, 'payouts');
    this.deposits = new RecordsResource(transport, 'deposits');
    this.conversions = new RecordsResource(transport, 'conversions');
    this.links = new RecordsResource(transport, 'links');
    this.campaignPlans = new CampaignPlans(transport);
    this.events = new EventsResource(transport);
    this.auditLog = new AuditLogResource(transport);
  }
}

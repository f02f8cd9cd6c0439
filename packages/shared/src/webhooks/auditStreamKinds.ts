/**
 * The destinations an audit stream may have (issue 63), as GitHub's audit log streaming offers
 * them: HTTPS JSON lines signed like webhooks, Splunk's HTTP Event Collector, Datadog's logs
 * intake. Kept here once: the webhooks service, its sender and the console's pages read them.
 */
export const STREAM_KINDS = ['https', 'splunk_hec', 'datadog'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

/** Datadog's sites; a stream's intake is its site's unless an intake URL (a proxy) is given. */
export const DATADOG_SITES = [
  'datadoghq.com',
  'us3.datadoghq.com',
  'us5.datadoghq.com',
  'datadoghq.eu',
  'ap1.datadoghq.com',
  'ap2.datadoghq.com',
  'ddog-gov.com',
] as const;
export type DatadogSite = (typeof DATADOG_SITES)[number];

/** The logs intake of a Datadog site (its HTTP API v2). */
export const datadogIntakeUrl = (site: DatadogSite): string =>
  `https://http-intake.logs.${site}/api/v2/logs`;

/** What a stream keeps beside its URL and its sealed token (receivers.stream_options). */
export interface StreamOptions {
  datadog_site?: string;
  splunk_index?: string;
}

/** How each kind is named in words (activity summaries, pages). */
export const KIND_WORDS: Record<StreamKind, string> = {
  https: 'HTTPS (JSON lines)',
  splunk_hec: 'Splunk HEC',
  datadog: 'Datadog',
};

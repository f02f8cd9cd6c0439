import { z } from 'zod';

/** Stream ids as the webhooks service mints them. */
export const STREAM_ID = /^aus_[A-Za-z0-9]{1,64}$/;

/** The destination's fields, alike in both forms. */
const destinationFields = {
  url: z.string().trim().max(2048, 'A stream URL is at most 2048 characters.').default(''),
  token: z.string().trim().max(512, 'A token or API key is at most 512 characters.').default(''),
  datadog_site: z.string().trim().max(64, 'A Datadog site is at most 64 characters.').default(''),
  splunk_index: z
    .string()
    .trim()
    .max(80, 'A Splunk index name is at most 80 characters.')
    .default(''),
};

/**
 * The add form as typed. The rules (the destination's egress policy, the token a kind needs,
 * Datadog's sites, Splunk's index names, the brand's limit) are the webhooks service's; a
 * refusal comes back in its words.
 */
export const AddStreamForm = z.object({
  kind: z.enum(['https', 'splunk_hec', 'datadog'], 'Choose where the stream goes.'),
  label: z
    .string()
    .trim()
    .min(1, 'Give the stream a name, e.g. "Splunk (security)".')
    .max(100, 'A stream name is at most 100 characters.'),
  ...destinationFields,
});
export type AddStreamValues = z.infer<typeof AddStreamForm>;

/** The settings form of a stream: what is left empty is left as it is (a token above all). */
export const UpdateStreamForm = z.object({
  label: z
    .string()
    .trim()
    .min(1, 'Give the stream a name.')
    .max(100, 'A stream name is at most 100 characters.'),
  ...destinationFields,
});

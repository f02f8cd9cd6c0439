import type { ListRecordsPageResponse } from '@brand/proto/records/v1';

/**
 * The records of a ListRecordsPage answer, read back from its JSON as the proto messages
 * hold them: a null field is absent, as in makeRecords' rows (which a test compares them
 * with). The JSON itself keeps every field, nulls included (records.listRecordsPage tests that).
 */
export function pageRecords(page: ListRecordsPageResponse): Array<Record<string, unknown>> {
  const text = Buffer.from(page.data_json).toString('utf8');
  return JSON.parse(text, (_key, value: unknown) => (value === null ? undefined : value)) as Array<
    Record<string, unknown>
  >;
}

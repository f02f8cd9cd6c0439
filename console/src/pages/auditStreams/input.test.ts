import { AddStreamForm, UpdateStreamForm } from './input';

describe('the stream forms', () => {
  const good = { kind: 'https', label: 'Splunk (security)', url: 'https://siem.example.com/in' };
  const long = 'x'.repeat(10_000);

  it('say a field too long in a sentence naming the field and the limit', () => {
    const cases: [string, string][] = [
      ['label', 'A stream name is at most 100 characters.'],
      ['url', 'A stream URL is at most 2048 characters.'],
      ['token', 'A token or API key is at most 512 characters.'],
      ['datadog_site', 'A Datadog site is at most 64 characters.'],
      ['splunk_index', 'A Splunk index name is at most 80 characters.'],
    ];
    for (const [field, sentence] of cases) {
      for (const form of [AddStreamForm, UpdateStreamForm]) {
        const messages = form
          .safeParse({ ...good, [field]: long })
          .error?.issues.map((i) => i.message);
        expect({ field, messages }).toEqual({ field, messages: [sentence] });
      }
    }
  });
});

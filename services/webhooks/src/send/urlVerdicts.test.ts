import { ACCEPTED_URLS, REFUSED_URLS } from '../../test/support/receiverUrlCases';
import { UrlVerdicts } from './urlVerdicts';

describe('UrlVerdicts: the URL rules of every attempt, judged once per URL text', () => {
  it.each(REFUSED_URLS)('refuses $url, the first time and every time after', ({ url, reason }) => {
    const verdicts = new UrlVerdicts(false);
    for (let i = 0; i < 2; i++) {
      const verdict = verdicts.of(url);
      expect(verdict.ok).toBe(false);
      expect(verdict.ok ? '' : verdict.refusal).toMatch(reason);
    }
  });

  it.each(ACCEPTED_URLS)('admits $url, parsed as the URL parser reads it', ({ url }) => {
    const verdict = new UrlVerdicts(false).of(url);
    expect(verdict.ok).toBe(true);
    if (!verdict.ok) return;
    const parsed = new URL(url.trim());
    expect(verdict.url.href).toBe(parsed.href);
    expect(verdict.attributes).toEqual({
      'http.request.method': 'POST',
      'url.scheme': 'https',
      'server.address': parsed.hostname,
      'server.port': Number(parsed.port || 443),
    });
  });

  it('judges a text once: the same verdict comes back without judging again', () => {
    const verdicts = new UrlVerdicts(false);
    const first = verdicts.of('https://hooks.example.com/a');
    expect(verdicts.of('https://hooks.example.com/a')).toBe(first);
    expect(verdicts.of('https://hooks.example.com/b')).not.toBe(first);
    expect(verdicts.size).toBe(2);
  });

  it('the loopback setting decides for loopback receivers (tests and local runs only)', () => {
    expect(new UrlVerdicts(false).of('https://127.0.0.1:8443/hook').ok).toBe(false);
    expect(new UrlVerdicts(true).of('https://127.0.0.1:8443/hook').ok).toBe(true);
  });

  it('remembers at most `max` texts, forgetting the least recently used first', () => {
    const verdicts = new UrlVerdicts(false, 3);
    const urls = [1, 2, 3, 4].map((n) => `https://hooks.example.com/${n}`);
    const first = urls.map((u) => verdicts.of(u));
    expect(verdicts.size).toBe(3);
    // the last three used are remembered; the first was forgotten and is judged anew
    expect(verdicts.of(urls[3]!)).toBe(first[3]);
    expect(verdicts.of(urls[0]!)).not.toBe(first[0]);
    expect(verdicts.size).toBe(3);
  });
});

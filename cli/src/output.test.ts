import {
  formatFields,
  formatTable,
  groupedNumber,
  indent,
  printFailure,
  printResult,
  shortTime,
  type Streams,
} from './output';

function collect(): Streams & { out: string; err: string } {
  const s = {
    out: '',
    err: '',
    stdout: (t: string) => void (s.out += t),
    stderr: (t: string) => void (s.err += t),
  };
  return s;
}

describe('formatTable', () => {
  it('aligns columns under a header and a rule, without trailing spaces', () => {
    const table = formatTable(
      ['ID', 'NAME', 'PLAN'],
      [
        ['br_1', 'Acme', 'plus'],
        ['br_22', 'Demo Brand', 'enterprise'],
      ],
    );
    expect(table.split('\n')).toEqual([
      'ID     NAME        PLAN',
      '-----  ----------  ----------',
      'br_1   Acme        plus',
      'br_22  Demo Brand  enterprise',
    ]);
  });

  it('prints only the header for no rows', () => {
    expect(formatTable(['A', 'B'], [])).toBe('A  B\n-  -');
  });
});

describe('formatFields', () => {
  it('aligns labels', () => {
    expect(
      formatFields([
        ['id', 'br_1'],
        ['verified', 'yes'],
      ]),
    ).toBe('id        br_1\nverified  yes');
  });
});

describe('indent', () => {
  it('indents non-empty lines only', () => {
    expect(indent('a\n\nb', 4)).toBe('    a\n\n    b');
  });
});

describe('shortTime', () => {
  it('drops fractional seconds and the T', () => {
    expect(shortTime('2025-01-31T09:15:02.123456Z')).toBe('2025-01-31 09:15:02Z');
  });
  it('shows absent values as a dash and keeps unknown formats', () => {
    expect(shortTime(undefined)).toBe('-');
    expect(shortTime('')).toBe('-');
    expect(shortTime('yesterday')).toBe('yesterday');
  });
});

describe('groupedNumber', () => {
  it('groups thousands with commas, as English does', () => {
    expect([0, 7, 999, 1_000, 10_000, 100_000, 1_234_567].map(groupedNumber)).toEqual([
      '0',
      '7',
      '999',
      '1,000',
      '10,000',
      '100,000',
      '1,234,567',
    ]);
  });
});

describe('printResult', () => {
  const result = { json: { brand: { id: 'br_1' } }, human: 'Brand created.' };

  it('prints only the human text without --json', () => {
    const s = collect();
    printResult(s, false, result);
    expect(s.out).toBe('Brand created.\n');
    expect(s.err).toBe('');
  });

  it('prints one parseable JSON document on one line with --json', () => {
    const s = collect();
    printResult(s, true, result);
    expect(s.out).toBe('{"brand":{"id":"br_1"}}\n');
  });
});

describe('printFailure', () => {
  const failure = { code: 'precondition_failed', message: 'the brand is not verified yet' };

  it('prints the message on stderr, prefixed with error:', () => {
    const s = collect();
    printFailure(s, false, failure);
    expect(s.err).toBe('error: the brand is not verified yet\n');
    expect(s.out).toBe('');
  });

  it('also prints {"error":{code,message}} on stdout with --json', () => {
    const s = collect();
    printFailure(s, true, { ...failure, details: [{ field: 'x', message: 'y' }] });
    expect(s.out.split('\n')).toEqual([expect.any(String), '']);
    expect(JSON.parse(s.out)).toEqual({
      error: { ...failure, details: [{ field: 'x', message: 'y' }] },
    });
    expect(s.err).toBe('error: the brand is not verified yet\n');
  });
});

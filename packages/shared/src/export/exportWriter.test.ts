import { PassThrough } from 'node:stream';
import { AppError } from '../errors/appError';
import { parseExportFormat, writeExport, type ExportRow } from './exportWriter';

async function* rowsOf(n: number): AsyncGenerator<ExportRow> {
  for (let i = 0; i < n; i++) {
    // a page read between rows, as the services' walks do
    if (i % 2 === 0) await Promise.resolve();
    yield { id: `act_${i}`, summary: i === 0 ? '=1+1' : 'a,b' };
  }
}

async function run(format: 'csv' | 'jsonl', n: number, maxRows: number) {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const result = await writeExport(out, {
    format,
    columns: ['id', 'summary'],
    rows: rowsOf(n),
    maxRows,
    cursorAfter: (r) => `after-${String(r.id)}`,
  });
  return { ...result, text: Buffer.concat(chunks).toString('utf8') };
}

describe('writeExport', () => {
  it('writes a CSV header and escaped rows', async () => {
    const r = await run('csv', 2, 10);
    expect(r).toMatchObject({ written: 2, truncated: false });
    expect(r.text).toBe(`id,summary\r\nact_0,'=1+1\r\nact_1,"a,b"\r\n`);
  });

  it('writes JSON Lines of the columns', async () => {
    const r = await run('jsonl', 2, 10);
    expect(
      r.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { id: 'act_0', summary: '=1+1' },
      { id: 'act_1', summary: 'a,b' },
    ]);
  });

  it('stops at the bound and says so with the cursor of the rest', async () => {
    const csv = await run('csv', 5, 3);
    expect(csv).toMatchObject({ written: 3, truncated: true });
    expect(csv.text.trim().split('\r\n').at(-1)).toMatch(
      /^# Export cut at 3 rows \(the maximum\).*cursor=after-act_2\.$/,
    );
    const jsonl = await run('jsonl', 5, 3);
    const last = JSON.parse(jsonl.text.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ truncated: true, max_rows: 3, cursor: 'after-act_2' });
  });

  it('a range of exactly the bound is not cut', async () => {
    expect(await run('jsonl', 3, 3)).toMatchObject({ written: 3, truncated: false });
  });
});

describe('parseExportFormat', () => {
  it('takes csv and jsonl only', () => {
    expect(parseExportFormat('csv')).toBe('csv');
    expect(parseExportFormat('jsonl')).toBe('jsonl');
    expect(() => parseExportFormat('xlsx')).toThrow(AppError);
    expect(() => parseExportFormat('')).toThrow('format: must be csv or jsonl.');
  });
});

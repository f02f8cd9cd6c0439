import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * docs/webhooks.md "In the code" is the map a new reader follows through the pipeline; it
 * must match the tree: every folder of src has a row, every row names a folder that exists,
 * and every file a row names is in that folder.
 */
const SRC = __dirname;
const DOC = join(__dirname, '../../../docs/webhooks.md');

function mapRows(): Map<string, string[]> {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('## In the code'));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const row = /^\| `([a-z]+)\/`\s*\|(.*)\|$/.exec(line);
    if (!row) continue;
    const files = [...row[2]!.matchAll(/`([A-Za-z]+\.ts)`/g)].map((m) => m[1]!);
    rows.set(row[1]!, files);
  }
  return rows;
}

describe('the webhooks code map (docs/webhooks.md "In the code")', () => {
  const rows = mapRows();
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

  it('has a row for every folder of src, and no row for a folder that is gone', () => {
    expect([...rows.keys()].sort()).toEqual([...folders].sort());
  });

  it('names only files that are in the folder of their row', () => {
    const missing = [...rows].flatMap(([folder, files]) =>
      files.filter((f) => !existsSync(join(SRC, folder, f))).map((f) => `${folder}/${f}`),
    );
    expect(missing).toEqual([]);
  });

  it('lists the pipeline stages in the order an event takes them', () => {
    const stages = [...rows.keys()].filter((f) =>
      ['ingest', 'claim', 'send', 'outcome', 'log'].includes(f),
    );
    expect(stages).toEqual(['ingest', 'claim', 'send', 'outcome', 'log']);
  });
});

/**
 * Statements of a migration that contract the schema (docs/internals.md "Migrations: expand,
 * then contract"): what the previous release may still read or write, dropped, renamed, retyped
 * or made required. The migration Job runs before the new pods, so such a statement breaks the
 * old pods for the whole rollout unless the previous release no longer uses what it touches.
 * Each one must say so in the statement's own comment line, `-- contract: <why the previous
 * release does not use it>`. test/faults/upgrade.test.ts runs the real thing; this is the
 * cheap check every test run makes.
 */
const CONTRACTING: Array<[RegExp, string]> = [
  [/\bdrop\s+(table|column|type|view)\b/i, 'drops'],
  [/\brename\s+(column\s+)?\w+\s+to\b|\brename\s+to\b/i, 'renames'],
  [/\balter\s+column\s+\w+\s+(set\s+data\s+)?type\b/i, 'changes a column type'],
];

/** `set not null` is contracting unless the same statement gives the column a default. */
const REQUIRED = /\bset\s+not\s+null\b/i;
const DEFAULTED = /\bset\s+default\b/i;

export interface ContractingStatement {
  /** 1-based line of the statement's start. */
  line: number;
  what: string;
  statement: string;
}

/** The contracting statements of `sql` that carry no `-- contract:` comment line above them. */
export function unmarkedContractingStatements(sql: string): ContractingStatement[] {
  const found: ContractingStatement[] = [];
  let start = 1;
  let marked = false;
  let text = '';
  const lines = sql.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (text === '' && line.startsWith('--')) {
      if (/^--\s*contract:/i.test(line)) marked = true;
      return;
    }
    if (text === '') start = i + 1;
    text += ` ${line.replace(/--.*$/, '')}`;
    if (!line.replace(/--.*$/, '').trimEnd().endsWith(';')) return;
    const what =
      CONTRACTING.find(([re]) => re.test(text))?.[1] ??
      (REQUIRED.test(text) && !DEFAULTED.test(text) ? 'makes a column required' : undefined);
    if (what && !marked) found.push({ line: start, what, statement: text.trim() });
    text = '';
    marked = false;
  });
  return found;
}

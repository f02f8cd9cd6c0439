// Every brandctl command line shown in code in the docs (fenced blocks and inline code of
// cli/README.md, README.md and docs/*.md) must name commands and flags brandctl's own parser knows,
// so a renamed flag fails here instead of in a reader's terminal (cli/README.md once said `brand
// create --plan` while brandctl wants `--tier`).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from './program';

const REPO_ROOT = path.resolve(__dirname, '../..');
const DOCS = [
  'cli/README.md',
  'README.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The code of a Markdown page: fenced blocks (continued lines joined) and inline spans. */
function codeOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) =>
    m[1]!.replace(/\\\n\s*/g, ' '),
  );
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  // Shell comments are prose, and diagram lines (arrows such as --gRPC-->) are not commands.
  const lines = blocks.flatMap((b) => b.split('\n')).map((l) => l.replace(/(^|\s)#.*$/, ''));
  return [...lines, ...spans].filter((l) => !l.includes('-->'));
}

/** The words after "brandctl" up to the end of the command (a comment, pipe, redirect...). */
function invocations(line: string): string[][] {
  return [...line.matchAll(/(?:^|[\s($])brandctl((?:\s+[^\s|;&#>)]+|\s+"[^"]*"|\s+'[^']*')*)/g)]
    .map((m) => (m[1] ?? '').match(/"[^"]*"|'[^']*'|\S+/g) ?? [])
    .filter((words) => words.length > 0);
}

const longFlags = (cmd: Command): string[] =>
  cmd.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);

/**
 * Checks one command line against the tree: each leading word that names a subcommand descends
 * into it; every --flag must be an option of that command or of one above it (global flags).
 * Returns the problems, empty when the line is one brandctl accepts.
 */
function problemsOf(words: string[], program: Command): string[] {
  let cmd = program;
  const known = new Set([...longFlags(program), '--help', '-h']);
  const problems: string[] = [];
  let descending = true;
  for (const word of words) {
    if (word.startsWith('-')) {
      const flag = word.split('=')[0]!;
      if (!known.has(flag)) problems.push(`${cmd.name()} has no option ${flag}`);
      continue;
    }
    if (!descending) continue;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      cmd = sub;
      for (const f of longFlags(sub)) known.add(f);
    } else if (cmd.commands.length > 0 && /^[a-z][a-z-]*$/.test(word)) {
      problems.push(`${cmd.name()} has no command ${word}`);
      descending = false;
    } else {
      descending = false; // an argument: the rest are arguments and flags
    }
  }
  return problems;
}

describe('brandctl command lines in the docs', () => {
  const program = buildProgram();
  const lines = DOCS.flatMap((file) =>
    codeOf(readFileSync(path.join(REPO_ROOT, file), 'utf8')).flatMap((code) =>
      invocations(code).map((words) => ({ file, words })),
    ),
  );

  it('finds the command lines (the extraction works)', () => {
    expect(lines.length).toBeGreaterThan(50);
    expect(lines.some((l) => l.words.join(' ').startsWith('brand create --name'))).toBe(true);
  });

  it('names only commands and flags brandctl has', () => {
    const problems = lines.flatMap(({ file, words }) =>
      problemsOf(words, program).map((p) => `${file}: brandctl ${words.join(' ')}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('catches a flag brandctl does not have', () => {
    expect(problemsOf(['brand', 'create', '--plan', 'plus'], program)).toEqual([
      'create has no option --plan',
    ]);
    expect(problemsOf(['brand', 'frobnicate'], program)).toEqual([
      'brand has no command frobnicate',
    ]);
  });
});

// The documentation stands alone. scripts/docs/checkLinks.mjs (npm run docs:check, part of npm run
// check and CI) is run here on small throwaway repositories: a link that leaves the repository's
// tree fails it even when the target exists on this machine, as does a non-web scheme, a missing
// heading or a code comment citing a heading that is not there; deliberate https links and links
// inside the tree pass.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

const CHECK = path.join(REPO_ROOT, 'scripts/docs/checkLinks.mjs');

let outside: string;
let repo: string;

/** Runs the link check in a fresh repository holding `files` (path -> text). */
function check(files: Record<string, string>): { status: number | null; output: string } {
  repo = mkdtempSync(path.join(outside, 'repo-'));
  spawnSync('git', ['init', '-q'], { cwd: repo });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
    writeFileSync(path.join(repo, name), text);
  }
  const run = spawnSync(process.execPath, [CHECK], { cwd: repo, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Split so this file's own text cites no heading that is missing (docs:check reads it too). */
const PAGE = 'docs/' + 'contract.md';
const CONTRACT = '# Contract\n\n## Receiver verification\n\nRules.\n';

beforeAll(() => {
  outside = mkdtempSync(path.join(tmpdir(), 'docs-check-'));
  // A file beside the repository, as ../shared/SPEC.md was: it exists, and still must not count.
  writeFileSync(path.join(outside, 'SPEC.md'), '# Spec\n');
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe('npm run docs:check', () => {
  it('passes links inside the tree, to headings that exist, and https links', () => {
    const result = check({
      'README.md':
        'See [the contract](docs/contract.md#receiver-verification) and [MCP](https://modelcontextprotocol.io/).\n',
      'docs/contract.md': CONTRACT,
      'src/verify.ts': '// as docs/contract.md#receiver-verification says\n',
    });
    expect(result.status).toBe(0);
    expect(result.output).toMatch(/every link stays in the repository/);
  });

  it('fails a link that leaves the repository, though the file exists beside it', () => {
    const result = check({ 'README.md': 'The contract is [SPEC](../SPEC.md).\n' });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/README\.md:1: \.\.\/SPEC\.md \(leaves the repository/);
  });

  it('fails an absolute path and a scheme that is not a web URL', () => {
    const result = check({
      'README.md': 'See [hosts](/etc/hosts) and [spec](file:///work/shared/SPEC.md).\n',
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/\/etc\/hosts \(absolute path/);
    expect(result.output).toMatch(/file:\/\/\/work\/shared\/SPEC\.md \(scheme "file"/);
  });

  it('fails a missing heading, in Markdown and in a code comment that cites one', () => {
    const result = check({
      'README.md': `See [rules](${PAGE}#verification-rules).\n`,
      'docs/contract.md': CONTRACT,
      'src/verify.ts': `/** As ${PAGE}#section-6-3 says. */\n`,
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(
      /README\.md:1: docs\/contract\.md#verification-rules \(no such heading\)/,
    );
    expect(result.output).toMatch(
      /src\/verify\.ts:1: docs\/contract\.md#section-6-3 \(no such heading\)/,
    );
  });
});

// npm run docs:check: every relative link in the repository's Markdown files points at a file
// that exists, and every #fragment at a heading of that file (GitHub's anchor rules). Links to
// the web are not fetched; links that leave the repository (../shared/SPEC.md, beside it in CI
// and on the steering side) are not checked. Exits 1 with one line per broken link.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const root = process.cwd();
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.md'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && !f.includes('node_modules/') && existsSync(f));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown file's headings (outside code blocks), numbered when repeated. */
function anchorsOf(file) {
  const seen = new Map();
  const anchors = new Set();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative link targets of a Markdown file, outside code blocks and inline code. */
function linksOf(file) {
  const links = [];
  let fenced = false;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      if (fenced) return;
      const text = line.replace(/`[^`]*`/g, '``');
      for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        links.push({ target: m[1], line: i + 1 });
      }
    });
  return links;
}

const broken = [];
for (const file of files) {
  for (const { target, line } of linksOf(file)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path, fragment] = target.split('#', 2);
    const resolved = path ? normalize(join(dirname(file), decodeURI(path))) : file;
    if (relative(root, join(root, resolved)).startsWith('..')) continue;
    const where = `${file}:${line}: ${target}`;
    if (!existsSync(resolved)) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (fragment && statSync(resolved).isFile() && resolved.endsWith('.md')) {
      if (!anchorsOf(resolved).has(fragment)) broken.push(`${where} (no such heading)`);
    }
  }
}

if (broken.length > 0) {
  console.error(`Broken links in the documentation (${broken.length}):`);
  for (const b of broken) console.error(`  ${b}`);
  process.exit(1);
}
console.log(`docs:check: ${files.length} Markdown files, every relative link resolves`);

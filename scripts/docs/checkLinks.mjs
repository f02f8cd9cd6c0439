// npm run docs:check: the documentation stands alone.
// - Every link in the repository's Markdown files stays inside the repository's tree and points
//   at a file that exists, and every #fragment at a heading of that file (GitHub's anchor
//   rules). A link that leaves the tree (`../shared/SPEC.md`, `/etc/hosts`) is broken even when
//   the file happens to exist on this machine: someone who clones the repository has only it.
// - The only way out is a deliberate external URL: a link with an allowed scheme
//   (EXTERNAL_SCHEMES). Those are not fetched.
// - Code, proto and OpenAPI text cite pages by repository path (`docs/contract.md#errors`); each
//   such citation must name a file that exists and a heading it has.
// Run from the repository's root (or any directory: the check reads the tree of `cwd`). Exits 1
// with one line per broken link.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative } from 'node:path';

/** Link schemes that deliberately leave the repository. Anything else with a scheme is refused. */
const EXTERNAL_SCHEMES = new Set(['http', 'https', 'mailto']);

/** Files whose text may cite documentation pages by repository path. */
const CITING_FILES = ['*.ts', '*.tsx', '*.mjs', '*.js', '*.sh', '*.proto', '*.yaml', '*.json'];

/** A citation of a page by repository path in code: `docs/contract.md#errors`. */
const CITATION =
  /(?<![\w./-])((?:docs|examples|sdk|cli|console|services|gateway)\/[\w./-]*\.md)(?:#([\w-]+))?/g;

const root = process.cwd();
const tracked = (patterns) =>
  execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...patterns], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f && !f.includes('node_modules/') && !f.includes('/dist/') && existsSync(f));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorCache = new Map();
/** The anchors of a Markdown file's headings (outside code blocks), numbered when repeated. */
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
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
  anchorCache.set(file, anchors);
  return anchors;
}

/** Link targets of a Markdown file, outside code blocks and inline code. */
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
      for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)) {
        links.push({ target: m[1], line: i + 1 });
      }
    });
  return links;
}

/** Why a file path and fragment inside the tree do not resolve, or undefined when they do. */
function problemWith(resolved, fragment) {
  if (!existsSync(resolved)) return 'no such file';
  if (fragment && statSync(resolved).isFile() && resolved.endsWith('.md')) {
    if (!anchorsOf(resolved).has(fragment)) return 'no such heading';
  }
  return undefined;
}

const broken = [];
const markdown = tracked(['*.md']);
for (const file of markdown) {
  for (const { target, line } of linksOf(file)) {
    const where = `${file}:${line}: ${target}`;
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(target);
    if (scheme) {
      if (!EXTERNAL_SCHEMES.has(scheme[1].toLowerCase())) {
        broken.push(`${where} (scheme "${scheme[1]}" is not an external URL the docs may use)`);
      }
      continue;
    }
    const [path, fragment] = target.split('#', 2);
    if (isAbsolute(path)) {
      broken.push(`${where} (absolute path: link relative to this file instead)`);
      continue;
    }
    const resolved = path ? normalize(join(dirname(file), decodeURI(path))) : file;
    if (relative(root, join(root, resolved)).startsWith('..')) {
      broken.push(`${where} (leaves the repository: describe it here or link an https URL)`);
      continue;
    }
    const problem = problemWith(resolved, fragment);
    if (problem) broken.push(`${where} (${problem})`);
  }
}

let citations = 0;
for (const file of tracked(CITING_FILES)) {
  if (file === 'package-lock.json' || file.startsWith('proto/gen/')) continue;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      for (const m of text.matchAll(CITATION)) {
        citations += 1;
        const problem = problemWith(m[1], m[2]);
        if (problem) broken.push(`${file}:${i + 1}: ${m[0]} (${problem})`);
      }
    });
}

if (broken.length > 0) {
  console.error(`Broken links in the documentation (${broken.length}):`);
  for (const b of broken) console.error(`  ${b}`);
  process.exit(1);
}
console.log(
  `docs:check: ${markdown.length} Markdown files and ${citations} citations in code, every link stays in the repository and resolves`,
);

#!/usr/bin/env node
// npm run check's type check and lint, in one process over one TypeScript program: exactly
// `tsc -p tsconfig.json --noEmit` and `eslint --max-warnings 0 .`, whose typed rules would
// otherwise build the same program a second time. typescript-eslint builds its program for a
// one-off run the same way (createProgram from the tsconfig), so the rules see what they would
// see alone; the checker has already checked every file when the rules ask it about types.
// Separately the two took ~27 + ~55 s of CPU, together ~54 (scripts/check.sh runs this one;
// `npm run typecheck` and `npm run lint` stay for running either alone).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tsestree from '@typescript-eslint/typescript-estree';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const program = tsestree.createProgram(path.join(root, 'tsconfig.json'), root);

const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  const host = {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  };
  process.stdout.write(
    process.stdout.isTTY
      ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host)
      : ts.formatDiagnostics(diagnostics, host),
  );
}

// Only TypeScript files take the program; JavaScript files are linted without types
// (eslint.config.mjs).
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [
    {
      files: ['**/*.ts', '**/*.tsx'],
      languageOptions: { parserOptions: { programs: [program], project: null } },
    },
  ],
});
const results = await eslint.lintFiles(['.']);
const formatter = await eslint.loadFormatter('stylish');
process.stdout.write(await formatter.format(results));

const errors = results.reduce((n, r) => n + r.errorCount, 0);
const warnings = results.reduce((n, r) => n + r.warningCount, 0);
const typeErrors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
if (typeErrors > 0 || errors > 0 || warnings > 0) {
  process.stderr.write(
    `typecheck and lint: ${typeErrors} type errors, ${errors} lint errors, ${warnings} lint warnings (none allowed)\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `typecheck and lint: ${results.length} files linted, no type errors, no lint errors or warnings\n`,
);

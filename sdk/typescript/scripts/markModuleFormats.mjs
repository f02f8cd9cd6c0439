// Marks each build's module format for Node and TypeScript: the package itself declares no
// "type", so dist/esm needs {"type":"module"} beside its files and dist/cjs, to be explicit,
// {"type":"commonjs"}. tsc cannot write these, so the build does it after compiling.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// the build's dist/, or the folder given (scripts/packRelease.sh builds elsewhere)
const dist = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
writeFileSync(join(dist, 'esm', 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
writeFileSync(join(dist, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);

#!/usr/bin/env node
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS shim over the build */
// brandctl is TypeScript compiled to ../dist; say how to build it rather than print a stack trace.
const main = require('node:path').join(__dirname, '..', 'dist', 'main.js');
if (!require('node:fs').existsSync(main)) {
  process.stderr.write('brandctl is not built yet: run npm run build (or npx tsc -b cli)\n');
  process.exit(1);
}
require(main);

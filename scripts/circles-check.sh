#!/usr/bin/env bash
# npm run circles:check: fails on any import circle in the shipped code (tests aside), type-only
# imports included: a circle of types still makes two files one unit that neither can be read,
# moved or tested without the other. dpdm reads the imports with the TypeScript compiler.
set -Eeuo pipefail
# shellcheck source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
cd "$REPO_ROOT"

out=$(npx --no-install dpdm --no-tree --no-warning --no-progress --circular --exit-code circular:1 \
  --exclude 'node_modules|/dist/|\.test\.tsx?$' \
  'packages/*/src/**/*.ts' 'services/*/src/**/*.ts' 'gateway/src/**/*.ts' \
  'console/src/**/*.{ts,tsx}' 'cli/src/**/*.ts' 'sdk/typescript/src/**/*.ts' 2>&1) || {
  printf '%s\n' "$out" | sed -n '/Circular Dependencies/,$p'
  die "import circles: each file of a circle imports the next; move what both need into a module of its own"
}
say "no import circles"

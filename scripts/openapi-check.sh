#!/usr/bin/env bash
# npm run openapi:check: the committed gateway/openapi/service.yaml must be exactly what the
# gateway serves (it is generated from the zod schemas), and it must lint clean.
set -euo pipefail
cd "$(dirname "$0")/.."
# Emit only: the types are npm run typecheck's (after npm test's --noCheck build, a checking
# build here would type-check the gateway and what it uses again, ~16 s of CPU).
npx --no-install tsc -b gateway --noCheck
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
node gateway/dist/writeOpenApi.js "$tmp"
if ! diff -q gateway/openapi/service.yaml "$tmp" >/dev/null; then
  echo "gateway/openapi/service.yaml is out of date; run: npm run openapi:gen" >&2
  diff -u gateway/openapi/service.yaml "$tmp" | head -40 >&2
  exit 1
fi
npx --no-install redocly lint gateway/openapi/service.yaml --format=stylish 2>&1 \
  | grep -v -e 'Deprecation warning' -e 'Node.js 2' -e 'Update Node.js' -e '^ *[║╔╚]' || true
npx --no-install redocly lint gateway/openapi/service.yaml >/dev/null 2>&1

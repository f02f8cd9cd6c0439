#!/usr/bin/env bash
# npm run sdk:types:check: the client's committed record types (src/generated/openapi.ts) must be
# exactly what openapi-typescript makes of the committed OpenAPI document, which
# `npm run openapi:check` in turn holds to what the gateway serves. Fix: npm run sdk:types:gen.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
npx --no-install openapi-typescript ../../gateway/openapi/service.yaml --output "$tmp" >/dev/null 2>&1
if ! diff -q src/generated/openapi.ts "$tmp" >/dev/null; then
  echo "sdk/typescript/src/generated/openapi.ts is out of date; run: npm run sdk:types:gen" >&2
  diff -u src/generated/openapi.ts "$tmp" | head -40 >&2
  exit 1
fi

#!/usr/bin/env bash
# Fails when proto/gen differs from what `buf generate` produces from the .proto files,
# i.e. someone edited a .proto without regenerating (or edited generated code by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
buf generate -o "$tmp"
if ! diff -r -q gen "$tmp/gen" >/dev/null; then
  echo "proto/gen is out of date with the .proto files; run: npm run proto:gen" >&2
  diff -r gen "$tmp/gen" | head -40 >&2
  exit 1
fi
echo "proto/gen is up to date"

